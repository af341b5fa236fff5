package seoapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tokenChars is what a Next token is made of: base64url without padding.
var tokenChars = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// resumeRun pages through a list with pages, stops after page k (1-based),
// and resumes from the saved Next token with a fresh iteration, as a job
// restarted in another process would: after the last page, the token
// resumes to the end and the second run yields nothing. It returns
// the IDs of the items of both runs in the order they came, the number of
// pages of the first run, and the saved token.
func resumeRun[T any](t *testing.T, pages func(opts *seoapi.ListOptions) func(func(*seoapi.Page[T], error) bool),
	opts *seoapi.ListOptions, k int, id func(*T) string) (ids []string, first int, token string) {
	t.Helper()
	for page, err := range pages(opts) {
		require.NoError(t, err)
		first++
		for _, item := range page.Items {
			ids = append(ids, id(item))
		}
		require.NotNil(t, page.Response)
		token = page.Next
		require.Regexp(t, tokenChars, token, "printable, URL-safe, on every page")
		if first == k {
			break
		}
	}
	resumed := *opts
	resumed.Resume = token
	// The token recorded the options: those given beside it are ignored.
	resumed.PerPage, resumed.Page, resumed.Cursor = 99, 42, "ignored"
	resumed.Extra = url.Values{"sort": {"ignored"}}
	for page, err := range pages(&resumed) {
		require.NoError(t, err)
		for _, item := range page.Items {
			ids = append(ids, id(item))
		}
	}
	return ids, first, token
}

// TestPagesResumeInEveryFakeStyle: a Pages run stopped after page k and
// resumed from its Next yields every item exactly once, in order, in every
// paging style of seoapitest, and each run sends one request a page.
func TestPagesResumeInEveryFakeStyle(t *testing.T) {
	t.Parallel()
	const total, pageSize = 30, 7 // pages of 7, 7, 7, 7 and 2
	styles := []struct {
		name  string
		style seoapitest.Paging
		pages int
	}{
		{"Link header", seoapitest.PagingLink, 5},
		{"page-number envelope", seoapitest.PagingPage, 5},
		{"cursor envelope", seoapitest.PagingCursor, 5},
		{"no paging", seoapitest.PagingNone, 1},
	}
	for _, st := range styles {
		for _, k := range slices.Compact([]int{1, min(2, st.pages), min(3, st.pages), max(st.pages-1, 1), st.pages}) {
			t.Run(fmt.Sprintf("%s/stopped after page %d", st.name, k), func(t *testing.T) {
				t.Parallel()
				fake, c, ws, p := fakeWithCompetitors(t, st.style, 10, total)
				before := len(fake.Requests())
				pages := func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.Competitor], error) bool) {
					return c.Competitors.Pages(context.Background(), ws, p, o)
				}
				opts := &seoapi.ListOptions{PerPage: pageSize, Extra: url.Values{"sort": {"name"}}}
				names, first, token := resumeRun(t, pages, opts, k, func(c *seoapi.Competitor) string { return c.Name })
				require.Len(t, names, total, "every item once")
				for i, n := range names {
					require.Equal(t, fmt.Sprintf("c%04d", i), n, "in order")
				}
				assert.Equal(t, min(k, st.pages), first)
				assert.NotEmpty(t, token, "every page has a Next, the last one too")
				sent := fake.Requests()[before:]
				assert.Len(t, sent, st.pages, "one request a page, none twice")
				for _, r := range sent {
					if st.style != seoapitest.PagingNone {
						assert.Equal(t, strconv.Itoa(pageSize), r.Query.Get("per_page"), "PerPage recorded in the token: %v", r.Query)
					}
					assert.Equal(t, "name", r.Query.Get("sort"), "Extra recorded in the token: %v", r.Query)
				}
			})
		}
	}
}

// pagingStyles are the styles seoapitest does not serve, as servers
// answering GET /api/workspaces: each reads where a page starts from the
// query and says where the next one is its own way.
var pagingStyles = []struct {
	name string
	// answer writes the page of items starting at offset, next is the
	// offset of the next page (-1: none), q the query of the request.
	answer func(w http.ResponseWriter, r *http.Request, items string, offset, next int)
}{
	{"next link in the body, relative", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		fmt.Fprintf(w, `{"data":%s,"next":%s}`, items, jsonOrNull(next >= 0, relativeNext(r, "page", strconv.Itoa(next/stylePageSize+1))))
	}},
	{"links.next absolute with an offset", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		fmt.Fprintf(w, `{"data":%s,"links":{"next":%s,"prev":null}}`, items, jsonOrNull(next >= 0, "http://"+r.Host+relativeNext(r, "offset", strconv.Itoa(next))))
	}},
	{"nextUrl with a cursor", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		fmt.Fprintf(w, `{"items":%s,"nextUrl":%s}`, items, jsonOrNull(next >= 0, relativeNext(r, "cursor", "c"+strconv.Itoa(next))))
	}},
	{"Link header with a cursor", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		if next >= 0 {
			w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, relativeNext(r, "cursor", "c"+strconv.Itoa(next))))
		}
		fmt.Fprint(w, items)
	}},
	{"next_cursor under meta", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		fmt.Fprintf(w, `{"data":%s,"meta":{"next_cursor":%s}}`, items, jsonOrNull(next >= 0, "c"+strconv.Itoa(next)))
	}},
	{"next_page number", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		n := 0
		if next >= 0 {
			n = next/stylePageSize + 1
		}
		fmt.Fprintf(w, `{"data":%s,"next_page":%d}`, items, n)
	}},
	{"page counters under pagination", func(w http.ResponseWriter, r *http.Request, items string, offset, next int) {
		fmt.Fprintf(w, `{"data":%s,"pagination":{"page":%d,"perPage":%d,"total":%d}}`, items, offset/stylePageSize+1, stylePageSize, styleTotal)
	}},
}

const styleTotal, stylePageSize = 23, 5 // pages of 5, 5, 5, 5 and 3

func jsonOrNull(ok bool, s string) string {
	if !ok {
		return "null"
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// relativeNext is the request's path and query with name set to value:
// the other parameters (per_page, filters) carry over, as servers do.
func relativeNext(r *http.Request, name, value string) string {
	q := r.URL.Query()
	for _, p := range []string{"page", "offset", "cursor"} {
		q.Del(p)
	}
	q.Set(name, value)
	return r.URL.EscapedPath() + "?" + q.Encode()
}

// styleServer serves styleTotal workspaces w00, w01, ... in the style's
// pages of stylePageSize. It answers 400 to a request without
// per_page=stylePageSize and sort=name, so that a resumed run must send
// the options the token recorded.
func styleServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, items string, offset, next int)) *recorder {
	t.Helper()
	return newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		if q.Get("per_page") != strconv.Itoa(stylePageSize) || q.Get("sort") != "name" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":"per_page and sort expected, got %s"}`, r.URL.RawQuery)
			return
		}
		offset := 0
		switch {
		case q.Get("page") != "":
			p, _ := strconv.Atoi(q.Get("page"))
			offset = (p - 1) * stylePageSize
		case q.Get("offset") != "":
			offset, _ = strconv.Atoi(q.Get("offset"))
		case q.Get("cursor") != "":
			offset, _ = strconv.Atoi(strings.TrimPrefix(q.Get("cursor"), "c"))
		}
		end := min(offset+stylePageSize, styleTotal)
		var items []string
		for i := offset; i < end; i++ {
			items = append(items, fmt.Sprintf(`{"id":"w%02d"}`, i))
		}
		next := -1
		if end < styleTotal {
			next = end
		}
		answer(w, r, "["+strings.Join(items, ",")+"]", offset, next)
	})
}

// TestPagesResumeInEveryOtherStyle does what TestPagesResumeInEveryFakeStyle
// does for the next links, cursors and page numbers of envelopes and Link
// headers that seoapitest does not serve, resuming on a new client (a job
// restarted in another process).
func TestPagesResumeInEveryOtherStyle(t *testing.T) {
	t.Parallel()
	const total = 5 // pages
	for _, st := range pagingStyles {
		for _, k := range []int{1, 2, 4, total} {
			t.Run(fmt.Sprintf("%s/stopped after page %d", st.name, k), func(t *testing.T) {
				t.Parallel()
				rec := styleServer(t, st.answer)
				first := newClient(t, rec.srv.URL)
				calls := 0
				pages := func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.Workspace], error) bool) {
					calls++
					c := first
					if calls > 1 {
						c = newClient(t, rec.srv.URL) // the restarted job's client
					}
					return c.Workspaces.Pages(context.Background(), o)
				}
				opts := &seoapi.ListOptions{PerPage: stylePageSize, Extra: url.Values{"sort": {"name"}}}
				ids, got, token := resumeRun(t, pages, opts, k, func(w *seoapi.Workspace) string { return w.ID })
				require.Len(t, ids, styleTotal, "every item once: %v", ids)
				for i, id := range ids {
					require.Equal(t, fmt.Sprintf("w%02d", i), id, "in order")
				}
				assert.Equal(t, k, got)
				assert.NotEmpty(t, token, "every page has a Next, the last one too")
				assert.Len(t, rec.requests(), total, "one request a page, none twice")
			})
		}
	}
}

// TestListResumeReturnsTheNamedPage: List given the Next token of page k
// returns page k+1, as Pages yielded it, in every style.
func TestListResumeReturnsTheNamedPage(t *testing.T) {
	t.Parallel()
	for _, st := range pagingStyles {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			rec := styleServer(t, st.answer)
			c := newClient(t, rec.srv.URL)
			opts := &seoapi.ListOptions{PerPage: stylePageSize, Extra: url.Values{"sort": {"name"}}}
			var tokens []string
			var pages [][]*seoapi.Workspace
			for page, err := range c.Workspaces.Pages(context.Background(), opts) {
				require.NoError(t, err)
				tokens = append(tokens, page.Next)
				pages = append(pages, page.Items)
			}
			require.Len(t, pages, 5)
			for k, token := range tokens[:len(tokens)-1] {
				list, resp, err := c.Workspaces.List(context.Background(), &seoapi.ListOptions{Resume: token})
				require.NoError(t, err)
				assert.Equal(t, ids(pages[k+1]), ids(list), "page %d", k+2)
				assert.Equal(t, 200, resp.StatusCode)
			}
		})
	}
}

func ids(ws []*seoapi.Workspace) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

// TestResumeOnEveryService: each service's Pages, All and List resume
// where the token says, against the fake.
func TestResumeOnEveryService(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	fake.SetPaging(seoapitest.PagingCursor, 2)
	ctx := context.Background()
	p, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: "p0"})
	require.NoError(t, err)
	for i := 1; i < 5; i++ {
		_, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: fmt.Sprintf("p%d", i)})
		require.NoError(t, err)
		fake.AddMember(ws, fmt.Sprintf("m%d@example.com", i), "member")
		fake.AddContentPlan(ws, p.ID, fmt.Sprintf("plan%d", i), "draft")
		fake.AddCompetitor(ws, p.ID, fmt.Sprintf("comp%d", i), "c.example")
		_, _, err = c.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: fmt.Sprintf("k%d", i)})
		require.NoError(t, err)
		_, _, err = c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: fmt.Sprintf("ws%d", i)})
		require.NoError(t, err)
	}
	type lister struct {
		pages func(*seoapi.ListOptions) ([]string, string) // the IDs of the first page, and its Next
		all   func(*seoapi.ListOptions) []string
		list  func(*seoapi.ListOptions) ([]string, error)
	}
	listers := map[string]lister{
		"Workspaces": {
			pages: firstPage(func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.Workspace], error) bool) {
				return c.Workspaces.Pages(ctx, o)
			}, func(w *seoapi.Workspace) string { return w.ID }),
			all: allIDs(func(o *seoapi.ListOptions) func(func(*seoapi.Workspace, error) bool) { return c.Workspaces.All(ctx, o) },
				func(w *seoapi.Workspace) string { return w.ID }),
			list: listIDs(func(o *seoapi.ListOptions) ([]*seoapi.Workspace, *seoapi.Response, error) {
				return c.Workspaces.List(ctx, o)
			},
				func(w *seoapi.Workspace) string { return w.ID }),
		},
		"Projects": {
			pages: firstPage(func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.Project], error) bool) {
				return c.Projects.Pages(ctx, ws, o)
			}, func(x *seoapi.Project) string { return x.ID }),
			all: allIDs(func(o *seoapi.ListOptions) func(func(*seoapi.Project, error) bool) { return c.Projects.All(ctx, ws, o) },
				func(x *seoapi.Project) string { return x.ID }),
			list: listIDs(func(o *seoapi.ListOptions) ([]*seoapi.Project, *seoapi.Response, error) {
				return c.Projects.List(ctx, ws, o)
			},
				func(x *seoapi.Project) string { return x.ID }),
		},
		"ContentPlans": {
			pages: firstPage(func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.ContentPlan], error) bool) {
				return c.ContentPlans.Pages(ctx, ws, o)
			}, func(x *seoapi.ContentPlan) string { return x.ID }),
			all: allIDs(func(o *seoapi.ListOptions) func(func(*seoapi.ContentPlan, error) bool) {
				return c.ContentPlans.All(ctx, ws, o)
			},
				func(x *seoapi.ContentPlan) string { return x.ID }),
			list: listIDs(func(o *seoapi.ListOptions) ([]*seoapi.ContentPlan, *seoapi.Response, error) {
				return c.ContentPlans.List(ctx, ws, o)
			}, func(x *seoapi.ContentPlan) string { return x.ID }),
		},
		"Members": {
			pages: firstPage(func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.Member], error) bool) {
				return c.Members.Pages(ctx, ws, o)
			}, func(x *seoapi.Member) string { return x.Email }),
			all: allIDs(func(o *seoapi.ListOptions) func(func(*seoapi.Member, error) bool) { return c.Members.All(ctx, ws, o) },
				func(x *seoapi.Member) string { return x.Email }),
			list: listIDs(func(o *seoapi.ListOptions) ([]*seoapi.Member, *seoapi.Response, error) {
				return c.Members.List(ctx, ws, o)
			},
				func(x *seoapi.Member) string { return x.Email }),
		},
		"Competitors": {
			pages: firstPage(func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.Competitor], error) bool) {
				return c.Competitors.Pages(ctx, ws, p.ID, o)
			}, func(x *seoapi.Competitor) string { return x.ID }),
			all: allIDs(func(o *seoapi.ListOptions) func(func(*seoapi.Competitor, error) bool) {
				return c.Competitors.All(ctx, ws, p.ID, o)
			}, func(x *seoapi.Competitor) string { return x.ID }),
			list: listIDs(func(o *seoapi.ListOptions) ([]*seoapi.Competitor, *seoapi.Response, error) {
				return c.Competitors.List(ctx, ws, p.ID, o)
			}, func(x *seoapi.Competitor) string { return x.ID }),
		},
		"APIKeys": {
			pages: firstPage(func(o *seoapi.ListOptions) func(func(*seoapi.Page[seoapi.APIKey], error) bool) {
				return c.APIKeys.Pages(ctx, ws, o)
			}, func(x *seoapi.APIKey) string { return x.ID }),
			all: allIDs(func(o *seoapi.ListOptions) func(func(*seoapi.APIKey, error) bool) { return c.APIKeys.All(ctx, ws, o) },
				func(x *seoapi.APIKey) string { return x.ID }),
			list: listIDs(func(o *seoapi.ListOptions) ([]*seoapi.APIKey, *seoapi.Response, error) {
				return c.APIKeys.List(ctx, ws, o)
			},
				func(x *seoapi.APIKey) string { return x.ID }),
		},
	}
	for name, l := range listers {
		t.Run(name, func(t *testing.T) {
			everything := l.all(nil)
			require.Greater(t, len(everything), 2, "more than one page")
			firstIDs, next := l.pages(nil)
			require.Len(t, firstIDs, 2)
			require.NotEmpty(t, next)
			assert.Equal(t, everything, append(firstIDs, l.all(&seoapi.ListOptions{Resume: next})...), "All resumes")
			second, err := l.list(&seoapi.ListOptions{Resume: next})
			require.NoError(t, err)
			assert.Equal(t, everything[2:min(4, len(everything))], second, "List returns the named page")
		})
	}
	// A token of one list is refused by every other, before sending.
	for from, l := range listers {
		_, next := l.pages(nil)
		for name, other := range listers {
			if name == from {
				continue
			}
			before := len(fake.Requests())
			_, err := other.list(&seoapi.ListOptions{Resume: next})
			assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, "%s token on %s", from, name)
			assert.Len(t, fake.Requests(), before, "%s token on %s: nothing sent", from, name)
		}
	}
}

func firstPage[T any](pages func(*seoapi.ListOptions) func(func(*seoapi.Page[T], error) bool), id func(*T) string) func(*seoapi.ListOptions) ([]string, string) {
	return func(o *seoapi.ListOptions) ([]string, string) {
		for page, err := range pages(o) {
			if err != nil {
				panic(err)
			}
			var out []string
			for _, item := range page.Items {
				out = append(out, id(item))
			}
			return out, page.Next
		}
		return nil, ""
	}
}

func allIDs[T any](all func(*seoapi.ListOptions) func(func(*T, error) bool), id func(*T) string) func(*seoapi.ListOptions) []string {
	return func(o *seoapi.ListOptions) []string {
		var out []string
		for item, err := range all(o) {
			if err != nil {
				panic(err)
			}
			out = append(out, id(item))
		}
		return out
	}
}

func listIDs[T any](list func(*seoapi.ListOptions) ([]*T, *seoapi.Response, error), id func(*T) string) func(*seoapi.ListOptions) ([]string, error) {
	return func(o *seoapi.ListOptions) ([]string, error) {
		items, _, err := list(o)
		var out []string
		for _, item := range items {
			out = append(out, id(item))
		}
		return out, err
	}
}

// TestResumeRefusesOtherListsAndBrokenTokens: a token given to another
// list, to a client with another base URL, edited to name another list or
// a next link off its list's path, or that is malformed fails with
// ErrInvalidArgument in List, All and Pages, before anything is sent. Any
// one character of a token changed either fails so or names a page of the
// same list. A client with another API key (a rotated key) accepts it.
func TestResumeRefusesOtherListsAndBrokenTokens(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	fake.SetPaging(seoapitest.PagingLink, 2)
	ctx := context.Background()
	other, _, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "other"})
	require.NoError(t, err)
	for i := range 5 {
		_, _, err := c.Projects.Create(ctx, ws, &seoapi.ProjectCreateRequest{Name: fmt.Sprintf("p%d", i)})
		require.NoError(t, err)
	}
	token := ""
	for page, err := range c.Projects.Pages(ctx, ws, nil) {
		require.NoError(t, err)
		token = page.Next
		break
	}
	require.NotEmpty(t, token)
	raw, err := base64.RawURLEncoding.DecodeString(token)
	require.NoError(t, err)
	var data struct{ Path, Next string }
	require.NoError(t, json.Unmarshal(raw, &data))
	listPath := "/api/workspaces/" + ws + "/projects"
	require.True(t, strings.HasSuffix(data.Path, listPath[1:]), data.Path)
	edited := func(path, next string) string {
		b, err := json.Marshal(map[string]string{"path": path, "next": next})
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	toOther := func(s string) string { return strings.ReplaceAll(s, ws, other.ID) }

	// Another server, and the same server under a path prefix: the list's
	// path is the same, the base URL is not.
	foreign := newRecorder(t, respond(200, "[]"))

	type attempt struct {
		name   string
		client *seoapi.Client
		ws     string
		token  string
	}
	attempts := []attempt{
		{"another workspace's list", c, other.ID, token},
		{"another server", newClient(t, foreign.srv.URL), ws, token},
		{"another path prefix", newClient(t, c.BaseURL().String()+"v2/"), ws, token},
		{"edited to another workspace's list", c, ws, edited(toOther(data.Path), toOther(data.Next))},
		{"next link edited to another workspace's list", c, ws, edited(data.Path, toOther(data.Next))},
		{"next link edited to another server", c, ws, edited(data.Path, strings.Replace(data.Next, c.BaseURL().Host, foreign.srv.Listener.Addr().String(), 1))},
		{"next link edited to climb out", c, ws, edited(data.Path, strings.Replace(data.Next, "/api/", "/api/%2e%2e/api/", 1))},
		{"cut", c, ws, token[:len(token)-1]},
		{"cut to a byte boundary", c, ws, base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1])},
		{"padded", c, ws, token + "=="},
		{"not base64", c, ws, "not a token!"},
		{"empty record", c, ws, "AA"},
		{"junk of a token's length", c, ws, base64.RawURLEncoding.EncodeToString(make([]byte, len(raw)))},
	}
	if std := base64.StdEncoding.EncodeToString(raw); std != token {
		attempts = append(attempts, attempt{"standard base64", c, ws, std})
	}
	for _, a := range attempts {
		before := len(fake.Requests())
		_, _, err := a.client.Projects.List(ctx, a.ws, &seoapi.ListOptions{Resume: a.token})
		assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, "List: %s", a.name)
		_, errs := collect(a.client.Projects.All(ctx, a.ws, &seoapi.ListOptions{Resume: a.token}))
		if assert.Len(t, errs, 1, "All: %s", a.name) {
			assert.ErrorIs(t, errs[0], seoapi.ErrInvalidArgument, "All: %s", a.name)
		}
		n := 0
		for page, err := range a.client.Projects.Pages(ctx, a.ws, &seoapi.ListOptions{Resume: a.token}) {
			n++
			assert.Nil(t, page)
			assert.ErrorIs(t, err, seoapi.ErrInvalidArgument, "Pages: %s", a.name)
		}
		assert.Equal(t, 1, n, "Pages yields the error once: %s", a.name)
		assert.Len(t, fake.Requests(), before, "nothing sent: %s", a.name)
	}

	for i := range token {
		for _, ch := range []byte{'A', 'z', '-', '_'} {
			if token[i] == ch {
				continue
			}
			before := len(fake.Requests())
			_, _, err := c.Projects.List(ctx, ws, &seoapi.ListOptions{Resume: token[:i] + string(ch) + token[i+1:]})
			if errors.Is(err, seoapi.ErrInvalidArgument) {
				assert.Len(t, fake.Requests(), before, "character %d set to %c: refused, nothing sent", i, ch)
			}
			for _, r := range fake.Requests()[before:] {
				assert.Equal(t, listPath, r.Path, "character %d set to %c: only the list's path", i, ch)
			}
			break
		}
	}
	assert.Empty(t, foreign.requests(), "nothing sent to the other server")

	// The token itself works where it belongs, after a key rotation too.
	_, _, err = c.Projects.List(ctx, ws, &seoapi.ListOptions{Resume: token})
	assert.NoError(t, err)
	created, _, err := c.APIKeys.Create(ctx, ws, &seoapi.APIKeyCreateRequest{Name: "rotated"})
	require.NoError(t, err)
	rotated, err := seoapi.NewClient(c.BaseURL().String(), string(created.Key), seoapi.WithInsecureHTTP())
	require.NoError(t, err)
	_, _, err = rotated.Projects.List(ctx, ws, &seoapi.ListOptions{Resume: token})
	assert.NoError(t, err)
}

// TestResumeTakesEveryNextThePagesMade: whatever next page a server
// announces and the SDK can ask for (a page number past 32 bits in a Link
// header or an envelope, a 70 KB cursor), the Next token of that page is
// accepted by Resume and asks for exactly that page.
func TestResumeTakesEveryNextThePagesMade(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("c0ffee", 12_000) // 72 KB
	tests := []struct {
		name  string
		first func(w http.ResponseWriter, r *http.Request)
		query string // of the resumed request
	}{
		{"Link with page=1700000000000", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `</api/workspaces?page=1700000000000>; rel="next"`)
			fmt.Fprint(w, `[{"id":"w1"}]`)
		}, "page=1700000000000"},
		{"nextPage 3000000000", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data":[{"id":"w1"}],"nextPage":3000000000}`)
		}, "page=3000000000"},
		{"a 72 KB cursor", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"data":[{"id":"w1"}],"nextCursor":%q}`, long)
		}, "cursor=" + long},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.RawQuery == "" {
					tt.first(w, r)
					return
				}
				fmt.Fprint(w, `[{"id":"w2"}]`)
			})
			c := newClient(t, rec.srv.URL)
			var token string
			for page, err := range c.Workspaces.Pages(context.Background(), nil) {
				require.NoError(t, err)
				token = page.Next
				break
			}
			list, _, err := c.Workspaces.List(context.Background(), &seoapi.ListOptions{Resume: token})
			require.NoError(t, err)
			assert.Equal(t, []string{"w2"}, ids(list))
			var got []string
			for ws, err := range newClient(t, rec.srv.URL).Workspaces.All(context.Background(), &seoapi.ListOptions{Resume: token}) {
				require.NoError(t, err)
				got = append(got, ws.ID)
			}
			assert.Equal(t, []string{"w2"}, got)
			require.Len(t, rec.requests(), 3)
			assert.Equal(t, tt.query, rec.requests()[1].Query)
			assert.Equal(t, tt.query, rec.requests()[2].Query)
		})
	}
}

// TestEndTokenResumesToNothing: the Next of the last page names the end of
// the list: Pages and All given it yield nothing, List returns no items,
// and nothing is sent, so a finished job that saved it does not start
// over.
func TestEndTokenResumesToNothing(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[{"id":"w1"}]`))
	c := newClient(t, rec.srv.URL)
	var tokens []string
	for page, err := range c.Workspaces.Pages(context.Background(), nil) {
		require.NoError(t, err)
		tokens = append(tokens, page.Next)
	}
	require.Len(t, tokens, 1)
	require.NotEmpty(t, tokens[0], "the last page has a Next")
	opts := &seoapi.ListOptions{Resume: tokens[0]}
	pages, errs := collect(c.Workspaces.Pages(context.Background(), opts))
	assert.Empty(t, pages)
	assert.Empty(t, errs)
	items, errs := collect(c.Workspaces.All(context.Background(), opts))
	assert.Empty(t, items)
	assert.Empty(t, errs)
	list, resp, err := c.Workspaces.List(context.Background(), opts)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Nil(t, resp, "nothing was sent")
	assert.Len(t, rec.requests(), 1, "only the first run's page")
}
