package seoapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeWithCompetitors starts a fake API paging in style, with n
// competitors under one project.
func fakeWithCompetitors(t *testing.T, style seoapitest.Paging, pageSize, n int) (*seoapitest.Server, *seoapi.Client, string, string) {
	t.Helper()
	fake, c, ws := newFake(t)
	fake.SetPaging(style, pageSize)
	p, _, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "p"})
	require.NoError(t, err)
	for i := range n {
		fake.AddCompetitor(ws, p.ID, fmt.Sprintf("c%04d", i), "c.example")
	}
	return fake, c, ws, p.ID
}

func TestAllFollowsEveryPagingStyle(t *testing.T) {
	t.Parallel()
	const total, pageSize = 1000, 37
	tests := []struct {
		name     string
		style    seoapitest.Paging
		requests int
	}{
		{"Link header", seoapitest.PagingLink, (total + pageSize - 1) / pageSize},
		{"page-number envelope", seoapitest.PagingPage, (total + pageSize - 1) / pageSize},
		{"cursor envelope", seoapitest.PagingCursor, (total + pageSize - 1) / pageSize},
		{"no paging", seoapitest.PagingNone, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake, c, ws, p := fakeWithCompetitors(t, tt.style, pageSize, total)
			before := len(fake.Requests())
			opts := &seoapi.ListOptions{}
			var names []string
			seen := map[string]bool{}
			for comp, err := range c.Competitors.All(context.Background(), ws, p, opts) {
				require.NoError(t, err)
				require.False(t, seen[comp.ID], "duplicate %s", comp.ID)
				seen[comp.ID] = true
				names = append(names, comp.Name)
			}
			require.Len(t, names, total)
			for i, n := range names {
				require.Equal(t, fmt.Sprintf("c%04d", i), n, "in order")
			}
			assert.Len(t, fake.Requests()[before:], tt.requests)
			assert.Equal(t, seoapi.ListOptions{}, *opts, "the caller's options are not changed")
		})
	}
}

func TestListReportsTheNextPage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		style  seoapitest.Paging
		check  func(t *testing.T, r *seoapi.Response)
		second *seoapi.ListOptions
	}{
		{"Link", seoapitest.PagingLink, func(t *testing.T, r *seoapi.Response) {
			assert.Equal(t, 2, r.NextPage)
			assert.Contains(t, r.NextURL, "page=2")
		}, &seoapi.ListOptions{Page: 2, PerPage: 10}},
		{"page", seoapitest.PagingPage, func(t *testing.T, r *seoapi.Response) {
			assert.Equal(t, 2, r.NextPage)
			assert.Empty(t, r.NextURL)
		}, &seoapi.ListOptions{Page: 2, PerPage: 10}},
		{"cursor", seoapitest.PagingCursor, func(t *testing.T, r *seoapi.Response) {
			assert.NotEmpty(t, r.NextCursor)
			assert.Zero(t, r.NextPage)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c, ws, p := fakeWithCompetitors(t, tt.style, 10, 25)
			first, resp, err := c.Competitors.List(context.Background(), ws, p, nil)
			require.NoError(t, err)
			require.Len(t, first, 10)
			tt.check(t, resp)
			next := tt.second
			if next == nil {
				next = &seoapi.ListOptions{Cursor: resp.NextCursor}
			}
			second, _, err := c.Competitors.List(context.Background(), ws, p, next)
			require.NoError(t, err)
			require.Len(t, second, 10)
			assert.Equal(t, "c0010", second[0].Name)
		})
	}
}

// pagedServer answers GET lists with items page(n) for the n-th request
// and the extra headers and envelope fields the test chooses.
func pagedServer(t *testing.T, answer func(n int, r *http.Request, w http.ResponseWriter)) *recorder {
	t.Helper()
	var n atomic.Int32
	return newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		answer(int(n.Add(1)), r, w)
	})
}

func collect[T any](seq func(func(*T, error) bool)) (items []*T, errs []error) {
	for item, err := range seq {
		if err != nil {
			errs = append(errs, err)
			if item != nil {
				panic("an error must come with a nil item")
			}
			continue
		}
		items = append(items, item)
	}
	return items, errs
}

// TestAllStopsOnRepeatedPages: a server that announces a page already
// asked for (by its URL), or that ignores the page or
// cursor it is asked for and sends the previous page again, ends All with
// ErrUnexpectedResponse before any item is yielded twice.
func TestAllStopsOnRepeatedPages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		answer   func(n int, r *http.Request, w http.ResponseWriter)
		items    int // yielded, each once
		requests int // sent before the repeat was seen
	}{
		{"Link back to the first page", func(n int, r *http.Request, w http.ResponseWriter) {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=1>; rel="next"`, r.Host))
			fmt.Fprintf(w, `[{"id":"w%d"}]`, n)
		}, 2, 2}, // page=1 is a URL of its own, with items of its own
		{"Link server ignoring page", func(n int, r *http.Request, w http.ResponseWriter) {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=2>; rel="next"`, r.Host))
			fmt.Fprintf(w, `[{"id":"w%d"}]`, n)
		}, 2, 2},
		{"Link server ignoring page, the same items", func(n int, r *http.Request, w http.ResponseWriter) {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=2>; rel="next"`, r.Host))
			fmt.Fprint(w, `[{"id":"w1"},{"id":"w2"}]`)
		}, 2, 2},
		{"cursor repeats", func(n int, _ *http.Request, w http.ResponseWriter) {
			fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"next_cursor":"same","has_more":true}`, n)
		}, 2, 2},
		{"cursor ignored, the same items", func(n int, _ *http.Request, w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"id":"w1"}],"nextCursor":"c1"}`)
		}, 1, 2},
		{"page counter ignoring page", func(n int, _ *http.Request, w http.ResponseWriter) {
			fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"meta":{"page":1,"total_pages":5}}`, n)
		}, 2, 2},
		{"page counter ignoring page, the same items", func(n int, _ *http.Request, w http.ResponseWriter) {
			fmt.Fprint(w, `{"data":[{"id":"w1"}],"page":1,"totalPages":5}`)
		}, 1, 2},
		{"next link in the body repeats", func(n int, r *http.Request, w http.ResponseWriter) {
			fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"links":{"next":"http://%s/api/workspaces?after=x"}}`, n, r.Host)
		}, 2, 2},
		{"new links, the same items", func(n int, r *http.Request, w http.ResponseWriter) {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=%d>; rel="next"`, r.Host, n+1))
			fmt.Fprint(w, `[{"id":"w1"}]`)
		}, 1, 2},
		{"Link with a nonce, items with a field that changes", func(n int, r *http.Request, w http.ResponseWriter) {
			if n > 10 {
				fmt.Fprint(w, `[]`) // a guard for the test: without the fix, it ends here
				return
			}
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=2&_=%d>; rel="next"`, r.Host, n))
			fmt.Fprintf(w, `[{"id":"w1","fetchedAt":%d},{"id":"w2","fetchedAt":%d}]`, n, n)
		}, 2, 2}, // the IDs repeat: the page is the first one again
		{"a page of items read before, in another order", func(n int, r *http.Request, w http.ResponseWriter) {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=%d>; rel="next"`, r.Host, n+1))
			if n == 1 {
				fmt.Fprint(w, `[{"id":"w1"},{"id":"w2"}]`)
				return
			}
			fmt.Fprint(w, `[{"id":"w2"},{"id":"w1"}]`)
		}, 2, 2},
		{"cursors cycling through 30", func(n int, _ *http.Request, w http.ResponseWriter) {
			fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"next_cursor":"c%d","has_more":true}`, n, n%30)
		}, 31, 31}, // the first page, then c1 to c29 and c0
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := pagedServer(t, tt.answer)
			items, errs := collect(newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil))
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
			assert.Contains(t, errs[0].Error(), "repeats")
			assert.Len(t, items, tt.items, "no item yielded twice")
			seen := map[string]bool{}
			for _, ws := range items {
				assert.False(t, seen[ws.ID], "%s yielded twice", ws.ID)
				seen[ws.ID] = true
			}
			assert.Len(t, rec.requests(), tt.requests, "stopped at the first repeat")
		})
	}
}

// TestAllFollowsPagesSharingItems: pages that share some items with
// earlier ones (a list shifted by an insertion) are followed, each shared
// item yielded once; IDs that concatenate alike are other items, and items
// without an ID are told apart by their JSON.
func TestAllFollowsPagesSharingItems(t *testing.T) {
	t.Parallel()
	pages := []string{
		`[{"id":"w1"},{"id":"w2"}]`,
		`[{"id":"w2"},{"id":"w3"}]`, // shifted by one
		`[{"id":"w3"},{"id":"w4"},{"id":"w5"}]`,
		`[{"id":"w4"},{"id":"w6"}]`,
		`[{"id":"ab"},{"id":"c"}]`,
		`[{"id":"a"},{"id":"bc"}]`, // the same characters, other IDs
		`[{"name":"no id","n":1}]`,
		`[{"name":"no id","n":2}]`, // no ID: told apart by their JSON
		`[]`,
	}
	rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
		w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=%d>; rel="next"`, r.Host, n+1))
		fmt.Fprint(w, pages[min(n, len(pages))-1])
	})
	items, errs := collect(newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil))
	assert.Empty(t, errs)
	ids := make([]string, len(items))
	for i, ws := range items {
		ids[i] = ws.ID
	}
	assert.Equal(t, []string{"w1", "w2", "w3", "w4", "w5", "w6", "ab", "c", "a", "bc", "", ""}, ids)
	assert.Len(t, rec.requests(), len(pages))
}

// TestAllStopsOnLongLoops drives servers whose next-page links enter a
// cycle of cycle pages after lead others: the iteration asks for each
// page once, yields no item twice, and ends.
func TestAllStopsOnLongLoops(t *testing.T) {
	t.Parallel()
	tests := []struct{ lead, cycle int }{{0, 100}, {10, 100}, {300, 40}, {5, 33}, {1000, 257}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d then a cycle of %d", tt.lead, tt.cycle), func(t *testing.T) {
			t.Parallel()
			rec := pagedServer(t, func(_ int, r *http.Request, w http.ResponseWriter) {
				page, _ := strconv.Atoi(r.URL.Query().Get("p"))
				next := page + 1
				if next == tt.lead+tt.cycle {
					next = tt.lead
				}
				w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?p=%d>; rel="next"`, r.Host, next))
				fmt.Fprintf(w, `[{"id":"w%d"}]`, page)
			})
			items, errs := collect(newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil))
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
			asked := tt.lead + tt.cycle
			if tt.lead == 0 {
				// The first request has no p: the cycle's return to p=0
				// is a new URL, whose items are the first page's.
				asked++
			}
			assert.Len(t, rec.requests(), asked, "each page asked for once")
			assert.Len(t, items, tt.lead+tt.cycle, "no item twice")
		})
	}
}

func TestAllFollowsThousandsOfPages(t *testing.T) {
	t.Parallel()
	// 3000 distinct cursors, far more pages than the guard remembers
	// exactly: none is taken for a repeat.
	const pages = 3000
	rec := pagedServer(t, func(n int, _ *http.Request, w http.ResponseWriter) {
		if n == pages {
			fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"has_more":false}`, n)
			return
		}
		fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"next_cursor":"cursor-%d","has_more":true}`, n, n)
	})
	items, errs := collect(newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil))
	assert.Empty(t, errs)
	require.Len(t, items, pages)
	assert.Equal(t, "w3000", items[pages-1].ID)
}

func TestAllEndsOnEmptyPage(t *testing.T) {
	t.Parallel()
	rec := pagedServer(t, func(n int, _ *http.Request, w http.ResponseWriter) {
		if n == 1 {
			fmt.Fprint(w, `{"data":[{"id":"a"}],"next_cursor":"c2","has_more":true}`)
			return
		}
		fmt.Fprintf(w, `{"data":[],"next_cursor":"c%d","has_more":true}`, n+1)
	})
	items, errs := collect(newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil))
	assert.Empty(t, errs)
	assert.Len(t, items, 1)
	assert.Len(t, rec.requests(), 2)
	assert.Equal(t, "cursor=c2", rec.requests()[1].Query)
}

func TestAllBreakStopsFetching(t *testing.T) {
	t.Parallel()
	fake, c, ws, p := fakeWithCompetitors(t, seoapitest.PagingLink, 37, 1000)
	before := len(fake.Requests())
	n := 0
	for _, err := range c.Competitors.All(context.Background(), ws, p, nil) {
		require.NoError(t, err)
		n++
		if n == 40 {
			break
		}
	}
	assert.Len(t, fake.Requests()[before:], 2, "pages 1 and 2 only")
}

// TestAllRefusesForeignNextLink: a page whose next link leaves the base
// URL fails with ErrUnexpectedResponse, before its items are yielded, and
// the key goes nowhere.
func TestAllRefusesForeignNextLink(t *testing.T) {
	t.Parallel()
	rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
		w.Header().Set("Link", `<https://evil.example.com/api/workspaces?page=2>; rel="next"`)
		fmt.Fprint(w, `[{"id":"a"}]`)
	})
	items, errs := collect(newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
	assert.Empty(t, items)
	assert.Len(t, rec.requests(), 1, "the key was not sent elsewhere")
}

// TestAllRefusesNextLinkOffTheListsPath: a next link under the base URL
// that leaves the list's own path (another workspace's API keys, a path
// below the list's) fails its page with ErrUnexpectedResponse: the key
// does not go there, and what answers there is not decoded as the list's
// items.
func TestAllRefusesNextLinkOffTheListsPath(t *testing.T) {
	t.Parallel()
	for _, next := range []string{"/api/workspaces/OTHER/api-keys?page=2", "/api/workspaces/w1/projects/p1?page=2", "/api/workspaces/w1/projects/?page=2"} {
		t.Run(next, func(t *testing.T) {
			t.Parallel()
			rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
				w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, next))
				fmt.Fprint(w, `[{"id":"p1"}]`)
			})
			c := newClient(t, rec.srv.URL)
			_, errs := collect(c.Projects.All(context.Background(), "w1", nil))
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
			assert.Contains(t, errs[0].Error(), "leaves the list's path")
			_, errs = collect(c.Projects.Pages(context.Background(), "w1", nil))
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
			require.Len(t, rec.requests(), 2)
			for _, r := range rec.requests() {
				assert.Equal(t, "/api/workspaces/w1/projects", r.Path)
			}
		})
	}
}

// TestAllRefusesDotSegmentNextLink: a next link that climbs out of the base
// path with percent-encoded dots (%2e%2e, which a gateway resolves) does
// not receive the key: All fails and nothing reaches the other service.
func TestAllRefusesDotSegmentNextLink(t *testing.T) {
	t.Parallel()
	for _, link := range []string{"/seoapi/%2e%2e/other/items?page=2", "/seoapi/%2E%2E/other/items?page=2", "/seoapi/api/%2e%2e/%2e%2e/other/items"} {
		t.Run(link, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, link))
				fmt.Fprint(w, `[{"id":"a"}]`)
			})
			_, errs := collect(newClient(t, rec.srv.URL+"/seoapi/").Workspaces.All(context.Background(), nil))
			require.Len(t, errs, 1)
			for _, r := range rec.requests() {
				assert.Equal(t, "/seoapi/api/workspaces", r.Path, "only the list was asked for")
			}
			assert.Len(t, rec.requests(), 1)
		})
	}
}

func TestAllRefusesNextLinkOutsidePathPrefix(t *testing.T) {
	t.Parallel()
	rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
		w.Header().Set("Link", fmt.Sprintf(`<http://%s/other/api/workspaces?page=2>; rel="next"`, r.Host))
		fmt.Fprint(w, `[{"id":"a"}]`)
	})
	_, errs := collect(newClient(t, rec.srv.URL+"/seo").Workspaces.All(context.Background(), nil))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
	assert.Len(t, rec.requests(), 1)
}

func TestAllYieldsPageErrorAfterEarlierItems(t *testing.T) {
	t.Parallel()
	rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
		if n == 3 {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"gone"}`)
			return
		}
		w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=%d>; rel="next"`, r.Host, n+1))
		fmt.Fprintf(w, `[{"id":"p%d-a"},{"id":"p%d-b"}]`, n, n)
	})
	var ids []string
	var errs []error
	for ws, err := range newClient(t, rec.srv.URL).Workspaces.All(context.Background(), nil) {
		if err != nil {
			assert.Nil(t, ws)
			errs = append(errs, err)
			continue
		}
		ids = append(ids, ws.ID)
	}
	assert.Equal(t, []string{"p1-a", "p1-b", "p2-a", "p2-b"}, ids)
	require.Len(t, errs, 1, "the error is yielded once")
	assert.ErrorIs(t, errs[0], seoapi.ErrNotFound)
	assert.Len(t, rec.requests(), 3)
}

func TestEnvelopePagingDiscovery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		body   string
		page   int
		cursor string
		next   string // path and query of NextURL
	}{
		{"next", `{"data":[{"id":"a"}],"next":"/api/workspaces?page=2"}`, 2, "", "/api/workspaces?page=2"},
		{"nextUrl", `{"data":[{"id":"a"}],"nextUrl":"/api/workspaces?cursor=zz"}`, 0, "zz", "/api/workspaces?cursor=zz"},
		{"next_url", `{"items":[{"id":"a"}],"next_url":"/api/workspaces?page=3"}`, 3, "", "/api/workspaces?page=3"},
		{"links.next", `{"data":[{"id":"a"}],"links":{"next":"/api/workspaces?page=2","prev":null}}`, 2, "", "/api/workspaces?page=2"},
		{"nextCursor", `{"data":[{"id":"a"}],"nextCursor":"c1"}`, 0, "c1", ""},
		{"next_cursor under meta", `{"data":[{"id":"a"}],"meta":{"next_cursor":"c1"}}`, 0, "c1", ""},
		{"cursor with hasMore", `{"data":[{"id":"a"}],"cursor":"c9","hasMore":true}`, 0, "c9", ""},
		{"cursor with has_more false", `{"data":[{"id":"a"}],"cursor":"c9","has_more":false}`, 0, "", ""},
		{"page and totalPages", `{"data":[{"id":"a"}],"page":1,"totalPages":3}`, 2, "", ""},
		{"last page", `{"data":[{"id":"a"}],"page":3,"total_pages":3}`, 0, "", ""},
		{"page, perPage, total under pagination", `{"data":[{"id":"a"}],"pagination":{"page":2,"perPage":10,"total":25}}`, 3, "", ""},
		{"page, per_page, total complete", `{"data":[{"id":"a"}],"meta":{"page":3,"per_page":10,"total":25}}`, 0, "", ""},
		{"nothing", `{"data":[{"id":"a"}]}`, 0, "", ""},
		{"bare array", `[{"id":"a"}]`, 0, "", ""},
		// Of a duplicate scope or member, the first is read: a later "meta"
		// cannot give the last page a next.
		{"duplicate meta, first cursor wins", `{"data":[],"meta":{"next_cursor":"c1"},"meta":{"next_cursor":"c2"}}`, 0, "c1", ""},
		{"duplicate meta, first page wins", `{"data":[],"meta":{"page":2,"total_pages":5},"meta":{"page":4}}`, 3, "", ""},
		{"duplicate meta ignored", `{"data":[],"meta":{"page":2},"meta":{"total_pages":5}}`, 0, "", ""},
		{"last page, then a next cursor", `{"data":[],"meta":{"page":2,"total_pages":2},"meta":{"next_cursor":"c9"}}`, 0, "", ""},
		{"duplicate top-level member, first wins", `{"data":[],"next_cursor":"c1","next_cursor":"c2"}`, 0, "c1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, tt.body))
			_, resp, err := newClient(t, rec.srv.URL).Workspaces.List(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, tt.page, resp.NextPage)
			assert.Equal(t, tt.cursor, resp.NextCursor)
			if tt.next == "" {
				assert.Empty(t, resp.NextURL)
			} else {
				u, err := url.Parse(resp.NextURL)
				require.NoError(t, err)
				assert.Equal(t, rec.srv.URL+tt.next, resp.NextURL, "resolved against the request")
				assert.Equal(t, tt.next, u.RequestURI())
			}
		})
	}
}

func TestLinkHeaderForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header []string
		next   string
	}{
		{"next and last", []string{`<HOST/api/workspaces?page=2>; rel="next", <HOST/api/workspaces?page=9>; rel="last"`}, "/api/workspaces?page=2"},
		{"last first", []string{`<HOST/api/workspaces?page=9>; rel="last", <HOST/api/workspaces?page=2>; rel="next"`}, "/api/workspaces?page=2"},
		{"rel list and comma in URL", []string{`<HOST/api/workspaces?ids=a,b&page=2>; title="x, y"; rel="prefetch next"`}, "/api/workspaces?ids=a,b&page=2"},
		{"unquoted rel, two headers", []string{`<HOST/api/workspaces?page=9>; rel=last`, `<HOST/api/workspaces?page=4>; rel=next`}, "/api/workspaces?page=4"},
		{"relative reference", []string{`</api/workspaces?page=5>; rel="next"`}, "/api/workspaces?page=5"},
		{"no next", []string{`<HOST/api/workspaces?page=1>; rel="prev"`}, ""},
		{"malformed", []string{`HOST/api/workspaces?page=2; rel="next"`, `<unterminated; rel="next"`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				for _, h := range tt.header {
					w.Header().Add("Link", strings.ReplaceAll(h, "HOST", "http://"+r.Host))
				}
				w.Write([]byte(`[]`))
			})
			_, resp, err := newClient(t, rec.srv.URL).Workspaces.List(context.Background(), nil)
			require.NoError(t, err)
			if tt.next == "" {
				assert.Empty(t, resp.NextURL)
				return
			}
			assert.Equal(t, rec.srv.URL+tt.next, resp.NextURL)
		})
	}
}

func TestAllUsesLimiterAndRetries(t *testing.T) {
	t.Parallel()
	lim := &countingLimiter{}
	var failed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page == 2 && failed.CompareAndSwap(false, true) {
			w.WriteHeader(503)
			return
		}
		if page < 3 {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=%d>; rel="next"`, r.Host, max(page, 1)+1))
		}
		fmt.Fprintf(w, `[{"id":"p%d"}]`, max(page, 1))
	}))
	defer srv.Close()
	c, err := seoapi.NewClient(srv.URL, testKey, seoapi.WithLimiter(waitFunc(lim.Wait)), seoapi.WithRetryWait(0, 0))
	require.NoError(t, err)
	items, errs := collect(c.Workspaces.All(context.Background(), nil))
	assert.Empty(t, errs)
	assert.Len(t, items, 3)
	assert.EqualValues(t, 4, lim.n.Load(), "3 pages plus one retry, each through the limiter")
}

// BenchmarkAllMemory reports the live heap while All iterates over lists
// of 10 000, 100 000 and 1 000 000 items (goal: the current page and the
// set of items already yielded, a SHA-256 sum an item in a map; figures in
// docs/pagination.md). The live heap is measured after a
// forced GC at the last item, less the live heap before the iteration
// began: what the iteration holds, its current page included. Pages of
// 1000 items keep the million affordable in a smoke run (-benchtime 1x).
//
//	go test -run '^$' -bench AllMemory -benchtime 1x
func BenchmarkAllMemory(b *testing.B) {
	const pageSize = 1000
	for _, total := range []int{10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(total), func(b *testing.B) {
			srv := httptest.NewServer(generatedPages(total, pageSize))
			defer srv.Close()
			c, err := seoapi.NewClient(srv.URL, testKey, seoapi.WithoutRateLimit())
			if err != nil {
				b.Fatal(err)
			}
			var live uint64
			for b.Loop() {
				live = iterateMeasuringHeap(b, c, total, pageSize)
			}
			b.ReportMetric(float64(live), "live-B")
		})
	}
}

// iterateMeasuringHeap runs All over the whole list and returns the live
// heap it holds at the last item.
func iterateMeasuringHeap(b *testing.B, c *seoapi.Client, total, pageSize int) uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var live uint64
	n := 0
	for ws, err := range c.Workspaces.All(context.Background(), &seoapi.ListOptions{PerPage: pageSize}) {
		if err != nil {
			b.Fatal(err)
		}
		n++
		if n == total {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			live = ms.HeapAlloc - min(before, ms.HeapAlloc)
			runtime.KeepAlive(ws)
		}
	}
	if n != total {
		b.Fatalf("iterated %d items of %d", n, total)
	}
	return live
}

// generatedPages answers GET /api/workspaces?page=N&per_page=M with the
// N-th page of a list of total workspaces, made up on the fly, and a Link
// to the next page.
func generatedPages(total, pageSize int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		first := (page - 1) * pageSize
		last := min(first+pageSize, total)
		if last < total {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?page=%d&per_page=%d>; rel="next"`, r.Host, page+1, pageSize))
		}
		w.Header().Set("Content-Type", "application/json")
		buf := make([]byte, 0, 48*pageSize)
		buf = append(buf, '[')
		for i := first; i < last; i++ {
			if i > first {
				buf = append(buf, ',')
			}
			buf = append(buf, `{"id":"ws_`...)
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, `","name":"Workspace `...)
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, `"}`...)
		}
		w.Write(append(buf, ']'))
	})
}

// TestAllYieldsNoItemTwice: a list whose pages overlap (an offset-paged
// list, newest first, that gained an item between two pages) yields each
// item once, in All and in Pages; items without an ID are told apart by
// their JSON.
func TestAllYieldsNoItemTwice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		pages []string
		want  []string // the IDs, or names of items without one, in order
	}{
		{"an item added between two pages", []string{
			`[{"id":"ws_3"},{"id":"ws_2"}]`,
			`[{"id":"ws_2"},{"id":"ws_1"}]`,
		}, []string{"ws_3", "ws_2", "ws_1"}},
		{"an item twice in one page", []string{
			`[{"id":"ws_2"},{"id":"ws_2"},{"id":"ws_1"}]`,
		}, []string{"ws_2", "ws_1"}},
		{"an ID in two forms", []string{
			`[{"id":7},{"id":"7"}]`,
		}, []string{"7"}},
		{"items without an ID", []string{
			`[{"name":"b"},{"name":"a"}]`,
			`[{"name":"a"},{"name":"z"}]`,
		}, []string{"b", "a", "z"}},
		{"an ID that is the JSON of an item without one", []string{
			`[{"id":"{\"name\":\"a\"}"}]`,
			`[{"name":"a"}]`,
		}, []string{`{"name":"a"}`, "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
				page := (n-1)%len(tt.pages) + 1 // All, then Pages
				if page < len(tt.pages) {
					w.Header().Set("Link", fmt.Sprintf(`</api/workspaces?page=%d>; rel="next"`, page+1))
				}
				fmt.Fprint(w, tt.pages[page-1])
			})
			c := newClient(t, rec.srv.URL)
			name := func(ws *seoapi.Workspace) string { return ws.ID + ws.Name }
			items, errs := collect(c.Workspaces.All(context.Background(), nil))
			assert.Empty(t, errs)
			got := []string{}
			for _, ws := range items {
				got = append(got, name(ws))
			}
			assert.Equal(t, tt.want, got, "All")

			got = []string{}
			for page, err := range c.Workspaces.Pages(context.Background(), nil) {
				require.NoError(t, err)
				for _, ws := range page.Items {
					got = append(got, name(ws))
				}
			}
			assert.Equal(t, tt.want, got, "Pages")
			assert.Len(t, rec.requests(), 2*len(tt.pages), "each page asked for once a run")
		})
	}
}
