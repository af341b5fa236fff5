package seoapi_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// percentEncoded writes every byte of s as %XX.
func percentEncoded(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// TestNextTokenHoldsNoKey: a hostile server that echoes the key in its
// next link (in the Link header or the body, plainly or percent-encoded)
// or as its cursor gets no token holding the key, in any form, nor a
// Response that reports it; the iteration still goes on, and resumes.
func TestNextTokenHoldsNoKey(t *testing.T) {
	t.Parallel()
	const pages = 3
	tests := []struct {
		name string
		// next announces page n+1 (2 <= n+1 <= pages) of the request r.
		next func(w http.ResponseWriter, r *http.Request, n int) string // the body's paging fields
	}{
		{"Link header, key in the query", func(w http.ResponseWriter, r *http.Request, n int) string {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?key=%s&page=%d>; rel="next"`, r.Host, testKey, n+1))
			return ""
		}},
		{"Link header, key percent-encoded", func(w http.ResponseWriter, r *http.Request, n int) string {
			w.Header().Set("Link", fmt.Sprintf(`</api/workspaces?k=%s&page=%d>; rel="next"`, percentEncoded(testKey), n+1))
			return ""
		}},
		{"next link in the body", func(w http.ResponseWriter, r *http.Request, n int) string {
			return fmt.Sprintf(`,"next":"/api/workspaces?access_token=%s&page=%d"`, testKey, n+1)
		}},
		{"next link in the body, percent-encoded", func(w http.ResponseWriter, r *http.Request, n int) string {
			return fmt.Sprintf(`,"links":{"next":"http://%s/api/workspaces?t=%s&page=%d"}`, r.Host, percentEncoded(testKey), n+1)
		}},
		{"cursor holding the key", func(w http.ResponseWriter, r *http.Request, n int) string {
			return fmt.Sprintf(`,"next_cursor":"%s-%d","has_more":true`, testKey, n+1)
		}},
		{"cursor holding the key JSON-escaped", func(w http.ResponseWriter, r *http.Request, n int) string {
			return fmt.Sprintf(`,"meta":{"next_cursor":"\u0073k_test_0123456789abcdef-%d"}`, n+1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				n := pageNumber(r)
				paging := ""
				if n < pages {
					paging = tt.next(w, r, n)
				}
				if paging == "" && w.Header().Get("Link") != "" {
					fmt.Fprintf(w, `[{"id":"w%d"}]`, n)
					return
				}
				fmt.Fprintf(w, `{"data":[{"id":"w%d"}]%s}`, n, paging)
			})
			c := newClient(t, rec.srv.URL)
			var tokens []string
			var got []string
			for page, err := range c.Workspaces.Pages(context.Background(), nil) {
				require.NoError(t, err)
				for _, w := range page.Items {
					got = append(got, w.ID)
				}
				assertNoKey(t, page.Response.NextURL, "Response.NextURL")
				assertNoKey(t, page.Response.NextCursor, "Response.NextCursor")
				assertNoKey(t, fmt.Sprint(page.Response), "the Response printed")
				if page.Next != "" {
					tokens = append(tokens, page.Next)
				}
			}
			assert.Equal(t, []string{"w1", "w2", "w3"}, got)
			require.Len(t, tokens, pages-1)
			for _, tok := range tokens {
				assertNoKey(t, tok, "the token")
				raw, err := base64.RawURLEncoding.DecodeString(tok)
				require.NoError(t, err)
				assertNoKey(t, string(raw), "the token's content")
				assert.NotContains(t, strings.ToLower(string(raw)), "bearer")
				assert.NotContains(t, strings.ToLower(string(raw)), "authorization")
			}
			// The token still says where the next page is.
			list, _, err := c.Workspaces.List(context.Background(), &seoapi.ListOptions{Resume: tokens[0]})
			require.NoError(t, err)
			require.Len(t, list, 1)
			assert.Equal(t, "w2", list[0].ID)
		})
	}
}

// pageNumber reads the page a request asks for from its page parameter or
// the number that ends its cursor; 1 when neither is there.
func pageNumber(r *http.Request) int {
	q := r.URL.Query()
	n := 1
	if p := q.Get("page"); p != "" {
		fmt.Sscan(p, &n)
	}
	if c := q.Get("cursor"); c != "" {
		fmt.Sscan(c[strings.LastIndexByte(c, '-')+1:], &n)
	}
	return n
}

// assertNoKey checks that s holds the key in none of the forms a server
// may echo it in: plain, percent-encoded (any case) or JSON-escaped.
func assertNoKey(t *testing.T, s, what string) {
	t.Helper()
	unescaped, err := url.QueryUnescape(s)
	if err != nil {
		unescaped = s
	}
	for _, form := range []string{s, unescaped, strings.ToLower(s), strings.ToUpper(s)} {
		assert.NotContains(t, form, testKey, "%s holds the key: %s", what, s)
		assert.NotContains(t, strings.ToLower(form), strings.ToLower(percentEncoded(testKey)), "%s holds the key percent-encoded: %s", what, s)
	}
	assert.NotContains(t, s, `\u0073k_test`, "%s holds the key JSON-escaped: %s", what, s)
}

// TestPagesBreakStopsFetching: breaking out of Pages sends no further
// request, after any page.
func TestPagesBreakStopsFetching(t *testing.T) {
	t.Parallel()
	for _, k := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("after page ", k), func(t *testing.T) {
			t.Parallel()
			rec := styleServer(t, pagingStyles[0].answer)
			c := newClient(t, rec.srv.URL)
			n := 0
			for _, err := range c.Workspaces.Pages(context.Background(), &seoapi.ListOptions{PerPage: stylePageSize, Extra: url.Values{"sort": {"name"}}}) {
				require.NoError(t, err)
				n++
				if n == k {
					break
				}
			}
			assert.Equal(t, k, n)
			assert.Len(t, rec.requests(), k, "no request after the break")
		})
	}
}

// TestPagesEndsAfterOneError: a page that fails is yielded as one error,
// with a nil page, after the pages before it, and nothing is fetched
// after it. An argument rejected before sending ends it the same way.
func TestPagesEndsAfterOneError(t *testing.T) {
	t.Parallel()
	rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
		if n == 3 {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"gone"}`)
			return
		}
		w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces/ws_1/members?page=%d>; rel="next"`, r.Host, n+1))
		fmt.Fprintf(w, `[{"id":"m%d","email":"m%d@example.com"}]`, n, n)
	})
	c := newClient(t, rec.srv.URL)
	var emails []string
	var errs []error
	for page, err := range c.Members.Pages(context.Background(), "ws_1", nil) {
		if err != nil {
			assert.Nil(t, page)
			errs = append(errs, err)
			continue
		}
		assert.NotEmpty(t, page.Next, "not the last page")
		for _, m := range page.Items {
			emails = append(emails, m.Email)
		}
	}
	assert.Equal(t, []string{"m1@example.com", "m2@example.com"}, emails)
	require.Len(t, errs, 1, "the error is yielded once")
	assert.ErrorIs(t, errs[0], seoapi.ErrNotFound)
	assert.Len(t, rec.requests(), 3)

	before := len(rec.requests())
	_, errs = collect(c.Competitors.Pages(context.Background(), "ws_1", "", nil))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], seoapi.ErrInvalidArgument)
	_, errs = collect(c.Projects.Pages(context.Background(), "ws_1", &seoapi.ListOptions{PerPage: -1}))
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], seoapi.ErrInvalidArgument)
	assert.Len(t, rec.requests(), before, "nothing sent")
}

// TestLoopGuardErrorIsAnAPIError: the error of a next page that repeats
// one already fetched is an *APIError like every other (issue 15): it
// names the request that was not sent and matches ErrUnexpectedResponse
// alone, in All and Pages.
func TestLoopGuardErrorIsAnAPIError(t *testing.T) {
	t.Parallel()
	rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
		fmt.Fprintf(w, `{"data":[{"id":"w%d"}],"next_cursor":"same","has_more":true}`, n)
	})
	c := newClient(t, rec.srv.URL)
	var pageErrs []error
	pages := 0
	for page, err := range c.Workspaces.Pages(context.Background(), nil) {
		if err != nil {
			pageErrs = append(pageErrs, err)
			continue
		}
		pages++
		assert.NotEmpty(t, page.Next)
	}
	assert.Equal(t, 2, pages)
	_, allErrs := collect(c.Workspaces.All(context.Background(), nil))
	for _, errs := range [][]error{pageErrs, allErrs} {
		require.Len(t, errs, 1)
		var apiErr *seoapi.APIError
		require.True(t, errors.As(errs[0], &apiErr), "an *APIError: %T", errs[0])
		assert.Equal(t, http.MethodGet, apiErr.Method)
		assert.Equal(t, rec.srv.URL+"/api/workspaces?cursor=same", apiErr.URL)
		assert.Zero(t, apiErr.StatusCode, "not sent")
		assert.Contains(t, apiErr.Message, "repeats a page already fetched")
		assert.Equal(t, seoapi.ErrUnexpectedResponse, apiErr.Kind())
		assert.Equal(t, "unexpected_response", seoapi.ErrorType(errs[0]))
		assert.NotErrorIs(t, errs[0], seoapi.ErrInvalidArgument)
		assert.NotErrorIs(t, errs[0], seoapi.ErrOutcomeUnknown)
		assert.Contains(t, apiErr.Error(), "GET "+rec.srv.URL+"/api/workspaces?cursor=same: not sent: the next page repeats")
	}
	assert.Len(t, rec.requests(), 4, "two pages a run, the repeat not sent")
}

// TestEchoedKeyStaysOutOfTheNextRequest: a next link or cursor in the body
// that echoes the key is cleaned of it, as a Link header is: the next
// request does not carry it, and neither does the error of that request.
func TestEchoedKeyStaysOutOfTheNextRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		page func(w http.ResponseWriter, r *http.Request)
	}{
		{"Link header", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", fmt.Sprintf(`</api/workspaces?k=%s&page=2>; rel="next"`, testKey))
			fmt.Fprint(w, `[{"id":"a"}]`)
		}},
		{"next link in the body", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"data":[{"id":"a"}],"next":"/api/workspaces?k=%s&page=2"}`, testKey)
		}},
		{"cursor in the body", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"data":[{"id":"a"}],"next_cursor":"%s","has_more":true}`, testKey)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := pagedServer(t, func(n int, r *http.Request, w http.ResponseWriter) {
				if n == 2 {
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, `{"error":"no such page"}`)
					return
				}
				tt.page(w, r)
			})
			c := newClient(t, rec.srv.URL)
			_, errs := collect(c.Workspaces.All(context.Background(), nil))
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrNotFound)
			assertNoKey(t, errs[0].Error(), "the error")
			require.Len(t, rec.requests(), 2)
			assertNoKey(t, rec.requests()[1].Query, "the next request")
		})
	}
}
