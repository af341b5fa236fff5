package seoapi

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyMayGo: the key goes to a URL only with the base URL's scheme,
// host and port, no credentials, and a plain path under the base path: a
// path servers may read differently (an escaped dot, slash, semicolon or
// backslash, a backslash, a semicolon, "//", a dot segment) is refused,
// not interpreted, even when it would stay under the base path.
func TestKeyMayGo(t *testing.T) {
	t.Parallel()
	c := internalClient(t, "https://api.example.com/v1")
	tests := []struct {
		url   string
		under bool
	}{
		{"https://api.example.com/v1/api/workspaces", true},
		{"https://API.Example.com/v1/api/workspaces", true},
		{"https://api.example.com:443/v1/api/workspaces", true},
		{"https://api.example.com/v1/", true},
		{"http://api.example.com:443/v1/api/workspaces", false}, // the scheme alone differs
		{"http://api.example.com/v1/api/workspaces", false},
		{"https://api.example.com:8443/v1/api/workspaces", false},
		{"https://evil.example.com/v1/api/workspaces", false},
		{"https://api.example.com.evil.com/v1/api/workspaces", false},
		{"https://user:pass@api.example.com/v1/api/workspaces", false},
		{"https://api.example.com/v1evil/api/workspaces", false},
		{"https://api.example.com/v2/api/workspaces", false},
		{"https://api.example.com/", false},
		{"https://api.example.com/v1/%2e%2e/admin/users", false},
		{"https://api.example.com/v1/%2E%2E/admin/users", false},
		{"https://api.example.com/v1/.%2e/admin/users", false},
		{"https://api.example.com/v1/..%2fadmin/users", false},
		{"https://api.example.com/v1/..%2Fadmin/users", false},
		{"https://api.example.com/v1/api%5c..%5c..%5cadmin", false},
		{"https://api.example.com/v1/..;/admin/users", false},
		{"https://api.example.com/v1/..%3B/admin/users", false}, // a server decodes the escaped ";"
		{"https://api.example.com/..;/v1/x", false},             // ".." to some servers, a name to others
		{"https://api.example.com/..%3B/v1/x", false},
		{"https://api.example.com/..%3b/v1/x", false},
		{"https://api.example.com/v1/.;x/api", false},
		{"https://api.example.com/v1//%2e%2e/admin", false}, // a server that merges slashes reads /admin
		{"https://api.example.com/v1//api", false},
		{"https://api.example.com/v1%3Bx/api", false}, // an escaped ";" is not the base path's "/v1"
		{"https://api.example.com/v1/a/%2e%2e/%2e%2e/admin", false},
		{"https://api.example.com/v1/%2e%2e", false},
		{"https://api.example.com/v1/api/%2e%2e/workspaces", false},
		{"https://api.example.com/v1/api/./workspaces", false},
		{"https://api.example.com/v1/api/workspaces/a%2Fb/projects", false},
		{"https://api.example.com/v1/api/workspaces/a%20b/projects", true},
		{"https://api.example.com/v1/api/workspaces/%7Eme/projects", true},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.url)
		require.NoError(t, err)
		assert.Equal(t, tc.under, c.keyMayGo(u), tc.url)
	}
}

// TestNewRequestRefusesDotSegmentsOutOfThePrefix: an absolute URL whose
// dot segments climb out of the base path is not under the base URL.
func TestNewRequestRefusesDotSegmentsOutOfThePrefix(t *testing.T) {
	t.Parallel()
	c := internalClient(t, "https://api.example.com/v1")
	for _, target := range []string{
		"https://api.example.com/v1/../admin",
		"https://api.example.com/v1/api/../../admin",
	} {
		req, err := c.NewRequest(context.Background(), http.MethodGet, target, nil)
		if assert.ErrorIs(t, err, ErrInvalidArgument, target) {
			continue
		}
		t.Errorf("%s is sent as %s, outside the base path /v1/", target, req.URL.EscapedPath())
	}
}

// TestCheckRedirect asks the client's redirect rule about redirects a
// real server test cannot build, such as one that changes only the scheme.
func TestCheckRedirect(t *testing.T) {
	t.Parallel()
	c := internalClient(t, "https://api.example.com:8443/v1")
	check := c.httpClient.CheckRedirect
	tests := []struct {
		name, firstMethod, method, target string
		follow                            bool
	}{
		{"GET under the base", "GET", "GET", "https://api.example.com:8443/v1/moved", true},
		{"HEAD under the base", "HEAD", "HEAD", "https://api.example.com:8443/v1/moved", true},
		{"DELETE under the base", "DELETE", "DELETE", "https://api.example.com:8443/v1/moved", true},
		{"scheme only", "GET", "GET", "http://api.example.com:8443/v1/moved", false},
		{"port only", "GET", "GET", "https://api.example.com:9443/v1/moved", false},
		{"host only", "GET", "GET", "https://other.example.com:8443/v1/moved", false},
		{"path prefix", "GET", "GET", "https://api.example.com:8443/v2/moved", false},
		{"POST kept", "POST", "POST", "https://api.example.com:8443/v1/moved", false},
		{"PATCH kept", "PATCH", "PATCH", "https://api.example.com:8443/v1/moved", false},
		{"PUT kept", "PUT", "PUT", "https://api.example.com:8443/v1/moved", false},
		{"POST turned into GET", "POST", "GET", "https://api.example.com:8443/v1/moved", false},
		{"DELETE turned into GET", "DELETE", "GET", "https://api.example.com:8443/v1/moved", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first, err := http.NewRequest(tc.firstMethod, "https://api.example.com:8443/v1/api/workspaces", nil)
			require.NoError(t, err)
			next, err := http.NewRequest(tc.method, tc.target, nil)
			require.NoError(t, err)
			err = check(next, []*http.Request{first})
			if tc.follow {
				assert.NoError(t, err)
			} else {
				assert.Equal(t, http.ErrUseLastResponse, err, "the 3xx is handed back, not followed")
			}
		})
	}
	t.Run("ten redirects", func(t *testing.T) {
		first, _ := http.NewRequest("GET", "https://api.example.com:8443/v1/api/workspaces", nil)
		via := []*http.Request{first}
		for len(via) < maxRedirects {
			via = append(via, first)
		}
		err := check(first, via)
		var r *redirectError
		assert.ErrorAs(t, err, &r)
	})
}

// TestBasePathWithAnEscapedSlashIsRefused: a base path a server may split
// at an escaped slash or backslash gives no prefix the key can be kept
// under, so NewClient refuses it.
func TestBasePathWithAnEscapedSlashIsRefused(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"https://api.example.com/a%2Fb/", "https://api.example.com/a%5cb", `https://api.example.com/a\b`} {
		_, err := NewClient(base, "sk_test_12345678")
		assert.ErrorIs(t, err, ErrInvalidArgument, base)
	}
}
