package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file prove issue 8 item 1: a redirect is followed
// only when its target is under the base URL (same scheme, host, port and
// path prefix) and the method is GET, HEAD or DELETE, so the key never
// reaches another origin and a write is never turned into a GET. Any
// other redirect is the caller's *APIError with the 3xx status and its
// Location.

// redirectingServer answers from with a redirect of status to location,
// and any other path with handle (or 200 and an empty list).
func redirectingServer(t *testing.T, from string, status int, location func(base string) string, handle http.HandlerFunc) *countingServer {
	t.Helper()
	var srv *countingServer
	srv = newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == from {
			w.Header().Set("Location", location(srv.URL))
			w.WriteHeader(status)
			return
		}
		if handle != nil {
			handle(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodDelete {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"moved","name":"moved"}]}`)
	})
	return srv
}

// requireNotFollowed checks the error of a redirect that was not followed.
func requireNotFollowed(t *testing.T, err error, status int, location string) {
	t.Helper()
	ae := requireOneKind(t, err, seoapi.ErrUnexpectedResponse)
	assert.Equal(t, status, ae.StatusCode)
	assert.Equal(t, location, ae.Header.Get("Location"))
	assert.Contains(t, err.Error(), "redirect")
	assert.Equal(t, 1, ae.Attempts, "a redirect refused is not retried")
	assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "the server answered")
}

// TestRedirectToAnotherOriginNotFollowed: a redirect to the same host on
// another port, or from https to http, is not followed, whatever the
// status and method, and the other server receives nothing.
func TestRedirectToAnotherOriginNotFollowed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			t.Run(fmt.Sprintf("other port/%d/%s", status, method), func(t *testing.T) {
				t.Parallel()
				elsewhere := newCountingServer(t, nil)
				path := map[string]string{http.MethodGet: "/api/workspaces", http.MethodDelete: "/api/workspaces/ws_1/projects/proj_1"}[method]
				target := elsewhere.URL + path
				srv := redirectingServer(t, path, status, func(string) string { return target }, nil)
				c := hostileClient(t, srv.URL)
				_, err := callMethod(context.Background(), c, method)
				requireNotFollowed(t, err, status, target)
				assert.Zero(t, elsewhere.total(), "the other port received a request (and the key)")
				assert.Equal(t, 1, srv.total())
			})
		}
	}
	t.Run("https to http", func(t *testing.T) {
		t.Parallel()
		elsewhere := newCountingServer(t, nil)
		target := elsewhere.URL + "/api/workspaces"
		tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Location", target)
			w.WriteHeader(http.StatusTemporaryRedirect)
		}))
		t.Cleanup(tlsSrv.Close)
		c := hostileClient(t, tlsSrv.URL, seoapi.WithHTTPClient(tlsSrv.Client()))
		_, _, err := c.Workspaces.List(context.Background(), nil)
		requireNotFollowed(t, err, http.StatusTemporaryRedirect, target)
		assert.Zero(t, elsewhere.total(), "the key went over plain http")
	})
}

// TestRedirectOfAWriteNotFollowed: a 3xx answering a POST or PATCH is
// not followed, even under the base URL: nothing is created twice and no
// GET is sent in its place.
func TestRedirectOfAWriteNotFollowed(t *testing.T) {
	t.Parallel()
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, method := range []string{http.MethodPost, http.MethodPatch} {
			t.Run(strconv.Itoa(status)+"/"+method, func(t *testing.T) {
				t.Parallel()
				path := map[string]string{http.MethodPost: "/api/workspaces", http.MethodPatch: "/api/workspaces/ws_1/projects/proj_1"}[method]
				srv := redirectingServer(t, path, status, func(base string) string { return base + path + "/moved" }, nil)
				c := hostileClient(t, srv.URL)
				_, err := callMethod(context.Background(), c, method)
				requireNotFollowed(t, err, status, srv.URL+path+"/moved")
				assert.Equal(t, 1, srv.count(method+" "+path))
				assert.Equal(t, 1, srv.total(), "the redirect was followed")
			})
		}
	}
}

// TestRedirectInsideTheBaseURL: under a base URL with a path prefix, a
// GET or DELETE is followed to a target under the prefix, keeping its
// method and key; a target outside the prefix, or one that would change
// the method, is not followed.
func TestRedirectInsideTheBaseURL(t *testing.T) {
	t.Parallel()
	const prefix = "/v1"
	tests := []struct {
		name     string
		method   string
		status   int
		location string // relative to the server
		followed bool
	}{
		{"GET 302 inside the prefix", http.MethodGet, 302, prefix + "/api/moved", true},
		{"GET 301 inside the prefix", http.MethodGet, 301, prefix + "/api/moved", true},
		{"GET 307 inside the prefix", http.MethodGet, 307, prefix + "/api/moved", true},
		{"GET 302 outside the prefix", http.MethodGet, 302, "/other/api/moved", false},
		{"GET 302 to a sibling of the prefix", http.MethodGet, 302, prefix + "evil/api/moved", false},
		{"DELETE 307 inside the prefix", http.MethodDelete, 307, prefix + "/api/moved", true},
		{"DELETE 308 inside the prefix", http.MethodDelete, 308, prefix + "/api/moved", true},
		{"DELETE 303 becomes a GET", http.MethodDelete, 303, prefix + "/api/moved", false},
		{"DELETE 301 becomes a GET", http.MethodDelete, 301, prefix + "/api/moved", false},
		{"DELETE 307 outside the prefix", http.MethodDelete, 307, "/other/api/moved", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			from := map[string]string{http.MethodGet: prefix + "/api/workspaces", http.MethodDelete: prefix + "/api/workspaces/ws_1/projects/proj_1"}[tc.method]
			srv := redirectingServer(t, from, tc.status, func(base string) string { return base + tc.location }, nil)
			c := hostileClient(t, srv.URL+prefix)
			resp, err := callMethod(context.Background(), c, tc.method)
			if !tc.followed {
				requireNotFollowed(t, err, tc.status, srv.URL+tc.location)
				assert.Equal(t, 1, srv.total(), "the redirect was followed")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 1, resp.Attempts, "a followed redirect is part of one attempt")
			assert.Equal(t, 1, srv.count(tc.method+" "+from))
			assert.Equal(t, 1, srv.count(tc.method+" "+tc.location), "the redirect keeps the method")
			assert.Equal(t, 2, srv.total())
			srv.mu.Lock()
			defer srv.mu.Unlock()
			assert.Equal(t, []string{"Bearer " + hostileTestKey, "Bearer " + hostileTestKey}, srv.auth)
		})
	}
}

// TestRedirectLoopStops: a redirect loop under the base URL stops after
// ten redirects with ErrUnexpectedResponse, and is not retried.
func TestRedirectLoopStops(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/api/workspaces")
		w.WriteHeader(http.StatusFound)
	})
	c := hostileClient(t, srv.URL)
	_, _, err := c.Workspaces.List(context.Background(), nil)
	ae := requireOneKind(t, err, seoapi.ErrUnexpectedResponse)
	assert.Equal(t, 1, ae.Attempts)
	assert.LessOrEqual(t, srv.total(), 11)
	assert.GreaterOrEqual(t, srv.total(), 10)
}

// TestUserCheckRedirectRunsAfterOurs: the CheckRedirect of the caller's
// http.Client is asked about a redirect the SDK would follow, and its
// refusal is ErrUnexpectedResponse; it is never asked about a redirect
// the SDK refuses.
func TestUserCheckRedirectRunsAfterOurs(t *testing.T) {
	t.Parallel()
	errUserSaysNo := errors.New("the caller's CheckRedirect says no")
	tests := []struct {
		name      string
		location  func(base, elsewhere string) string
		answer    error // what the caller's CheckRedirect returns
		wantCalls int
		followed  bool
	}{
		{"followed when it agrees", func(base, _ string) string { return base + "/api/moved" }, nil, 1, true},
		{"refused by it", func(base, _ string) string { return base + "/api/moved" }, errUserSaysNo, 1, false},
		{"its ErrUseLastResponse", func(base, _ string) string { return base + "/api/moved" }, http.ErrUseLastResponse, 1, false},
		{"not asked about another origin", func(_, elsewhere string) string { return elsewhere + "/api/moved" }, nil, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			elsewhere := newCountingServer(t, nil)
			srv := redirectingServer(t, "/api/workspaces", http.StatusFound, func(base string) string { return tc.location(base, elsewhere.URL) }, nil)
			var mu sync.Mutex
			var asked []string
			hc := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, req.Method+" "+req.URL.Path)
				return tc.answer
			}}
			c := hostileClient(t, srv.URL, seoapi.WithHTTPClient(hc))
			list, _, err := c.Workspaces.List(context.Background(), nil)

			mu.Lock()
			assert.Len(t, asked, tc.wantCalls)
			if tc.wantCalls > 0 {
				assert.Equal(t, "GET /api/moved", asked[0])
			}
			mu.Unlock()
			assert.Zero(t, elsewhere.total())
			switch {
			case tc.followed:
				require.NoError(t, err)
				require.Len(t, list, 1)
				assert.Equal(t, "moved", list[0].ID)
			case tc.answer == errUserSaysNo:
				ae := requireOneKind(t, err, seoapi.ErrUnexpectedResponse)
				assert.ErrorIs(t, err, errUserSaysNo, "the caller's error stays reachable")
				assert.Equal(t, 1, ae.Attempts, "a refused redirect is not retried")
				assert.Zero(t, srv.count("GET /api/moved"))
			default:
				requireNotFollowed(t, err, http.StatusFound, tc.location(srv.URL, elsewhere.URL))
				assert.Zero(t, srv.count("GET /api/moved"))
			}
		})
	}
}

// TestRedirectChainLeavingTheOrigin: a redirect followed inside the base
// URL whose next hop leaves the origin stops there: the other server
// receives nothing, and the error names the URL the caller asked for and
// the Location it refused.
func TestRedirectChainLeavingTheOrigin(t *testing.T) {
	t.Parallel()
	elsewhere := newCountingServer(t, nil)
	target := elsewhere.URL + "/api/workspaces"
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/workspaces" {
			w.Header().Set("Location", "/api/hop")
		} else {
			w.Header().Set("Location", target)
		}
		w.WriteHeader(http.StatusTemporaryRedirect)
	})
	c := hostileClient(t, srv.URL)
	_, _, err := c.Workspaces.List(context.Background(), nil)
	requireNotFollowed(t, err, http.StatusTemporaryRedirect, target)
	var ae *seoapi.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, srv.URL+"/api/workspaces", ae.URL, "the URL the caller asked for")
	assert.Equal(t, 1, srv.count("GET /api/hop"))
	assert.Zero(t, elsewhere.total())
}
