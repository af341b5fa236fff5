package seoapi_test

import (
	"context"
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

// TestNextLinkHoldingTheKeyIsRefused: a hostile server that echoes the key
// in its next link (in the Link header or the body, plainly or
// percent-encoded) or as its cursor (plainly or JSON-escaped) fails that
// page with ErrUnexpectedResponse in List, All and Pages: the SDK neither
// follows the link nor rewrites it into a request of its own, no item of
// the page is yielded, no token is made, and neither the error nor the
// Response shows the key.
func TestNextLinkHoldingTheKeyIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// next writes the Link header or returns the body's paging fields.
		next func(w http.ResponseWriter, r *http.Request) string
	}{
		{"Link header, key in the query", func(w http.ResponseWriter, r *http.Request) string {
			w.Header().Set("Link", fmt.Sprintf(`<http://%s/api/workspaces?key=%s&page=2>; rel="next"`, r.Host, testKey))
			return ""
		}},
		{"Link header, key percent-encoded", func(w http.ResponseWriter, r *http.Request) string {
			w.Header().Set("Link", fmt.Sprintf(`</api/workspaces?k=%s&page=2>; rel="next"`, percentEncoded(testKey)))
			return ""
		}},
		{"next link in the body", func(w http.ResponseWriter, r *http.Request) string {
			return fmt.Sprintf(`,"next":"/api/workspaces?access_token=%s&page=2"`, testKey)
		}},
		{"next link in the body, percent-encoded", func(w http.ResponseWriter, r *http.Request) string {
			return fmt.Sprintf(`,"links":{"next":"http://%s/api/workspaces?t=%s&page=2"}`, r.Host, percentEncoded(testKey))
		}},
		{"cursor holding the key", func(w http.ResponseWriter, r *http.Request) string {
			return fmt.Sprintf(`,"next_cursor":"%s-2","has_more":true`, testKey)
		}},
		{"cursor holding the key JSON-escaped", func(w http.ResponseWriter, r *http.Request) string {
			return `,"meta":{"next_cursor":"\u0073k_test_0123456789abcdef-2"}`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if paging := tt.next(w, r); paging != "" {
					fmt.Fprintf(w, `{"data":[{"id":"w1"}]%s}`, paging)
					return
				}
				fmt.Fprint(w, `[{"id":"w1"}]`)
			})
			c := newClient(t, rec.srv.URL)
			ctx := context.Background()

			list, resp, err := c.Workspaces.List(ctx, nil)
			assert.ErrorIs(t, err, seoapi.ErrUnexpectedResponse)
			assert.Empty(t, list)
			require.NotNil(t, resp, "the server answered")
			assert.Empty(t, resp.NextURL+resp.NextCursor)
			assertNoKey(t, fmt.Sprint(resp), "the Response printed")
			assertNoKey(t, fmt.Sprintf("%+v", err), "the error")

			items, errs := collect(c.Workspaces.All(ctx, nil))
			assert.Empty(t, items, "no item of the refused page")
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)
			assertNoKey(t, errs[0].Error(), "the error")

			pages, errs := collect(c.Workspaces.Pages(ctx, nil))
			assert.Empty(t, pages, "no page, no token")
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], seoapi.ErrUnexpectedResponse)

			assert.Len(t, rec.requests(), 3, "one request a call, the next link never followed")
			for _, r := range rec.requests() {
				assert.Equal(t, "/api/workspaces", r.Path)
				assert.Empty(t, r.Query)
			}
		})
	}
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
