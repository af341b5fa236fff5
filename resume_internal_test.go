package seoapi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encoded is a token of any content, as anyone can make one.
func encoded(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(data)
}

// TestEditedTokensAreRefused: a token edited to name another list, or a
// next link off its list's path or outside the base URL, or that is not a
// token, is refused with ErrInvalidArgument before anything is sent, and
// the key goes nowhere. An edited token that names another page of its
// own list is followed: that is all an edit can reach.
func TestEditedTokensAreRefused(t *testing.T) {
	t.Parallel()
	var evilHits atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evilHits.Add(1)
		w.Write([]byte(`[]`))
	}))
	defer evil.Close()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`[{"id":"p1"}]`))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/v1", "sk_internal_0123", WithoutRateLimit())
	require.NoError(t, err)
	host := strings.TrimPrefix(srv.URL, "http://")
	path, err := listProjects.path("w1")
	require.NoError(t, err)
	tok := func(next string) string { return encoded(tokenData{Path: path, Next: next}) }

	tests := []struct {
		name  string
		token string
	}{
		{"next link to another workspace's API keys", tok(srv.URL + "/v1/api/workspaces/OTHER/api-keys?page=2")},
		{"next link to a sub-path of the list", tok(srv.URL + "/v1/api/workspaces/w1/projects/x")},
		{"next link with an encoded dot segment", tok(srv.URL + "/v1/%2e%2e/admin/api/workspaces/w1/projects")},
		{"next link to another origin", tok(evil.URL + "/v1/api/workspaces/w1/projects?page=2")},
		{"next link to another port", tok("http://127.0.0.1:1/v1/api/workspaces/w1/projects")},
		{"next link protocol-relative", tok("//" + strings.TrimPrefix(evil.URL, "http://") + "/v1/api/workspaces/w1/projects")},
		{"next link outside the base path", tok(srv.URL + "/v2/api/workspaces/w1/projects")},
		{"next link with credentials", tok("http://user:pw@" + host + "/v1/api/workspaces/w1/projects")},
		{"next link relative", tok("/v1/api/workspaces/w1/projects?page=2")},
		{"next link not a URL", tok("http://%zz")},
		{"next link holding the key", tok(srv.URL + "/v1/api/workspaces/w1/projects?k=sk_internal_0123")},
		{"another list's path and next link", encoded(tokenData{Path: "api/workspaces/w2/projects", Next: srv.URL + "/v1/api/workspaces/w2/projects?page=2"})},
		{"another list, at its end", encoded(tokenData{Path: "api/workspaces/w2/projects"})},
		{"an earlier release's token of another list", encoded(map[string]any{"v": 3, "route": listProjects.route, "path": "api/workspaces/w2/projects"}) + ".tag"},
		{"no path", encoded(map[string]string{"next": srv.URL + "/v1/api/workspaces/w1/projects?page=2"})},
		{"JSON that is not a token", base64.RawURLEncoding.EncodeToString([]byte(`[1,2]`))},
		{"JSON null", base64.RawURLEncoding.EncodeToString([]byte(`null`))},
		{"not base64url", "not a token!"},
		{"padded", tok(srv.URL+"/v1/api/workspaces/w1/projects?page=2") + "=="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &ListOptions{Resume: tt.token}
			_, _, err := c.Projects.List(context.Background(), "w1", opts)
			assert.ErrorIs(t, err, ErrInvalidArgument)
			assert.NotContains(t, err.Error(), "sk_internal_0123")
			n := 0
			for page, err := range c.Projects.Pages(context.Background(), "w1", opts) {
				n++
				assert.Nil(t, page)
				assert.ErrorIs(t, err, ErrInvalidArgument)
			}
			assert.Equal(t, 1, n)
			for _, err := range c.Projects.All(context.Background(), "w1", opts) {
				assert.ErrorIs(t, err, ErrInvalidArgument)
			}
		})
	}
	assert.Zero(t, hits.Load(), "nothing sent to the API")
	assert.Zero(t, evilHits.Load(), "nothing sent elsewhere")

	// A token edited to another page of its own list is followed.
	list, _, err := c.Projects.List(context.Background(), "w1", &ListOptions{Resume: tok(srv.URL + "/v1/api/workspaces/w1/projects?page=99")})
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.EqualValues(t, 1, hits.Load())
}

// Tokens an earlier release made for listProjects on w1, with the key
// sk_old_0123456789 and the base URL https://api.example.com/v1: the
// JSON holds a version and the route too, and a tag follows the dot.
const (
	earlierToken    = "eyJ2IjozLCJyb3V0ZSI6Ii9hcGkvd29ya3NwYWNlcy97aWR9L3Byb2plY3RzIiwicGF0aCI6ImFwaS93b3Jrc3BhY2VzL3cxL3Byb2plY3RzIiwibmV4dCI6Imh0dHBzOi8vYXBpLmV4YW1wbGUuY29tL3YxL2FwaS93b3Jrc3BhY2VzL3cxL3Byb2plY3RzP3BhZ2U9Mlx1MDAyNnBlcl9wYWdlPTEwIn0._9gqXyRIKbU50ONo68mNgp4JpFY6RUc56BWiMtm5AYE"
	earlierEndToken = "eyJ2IjozLCJyb3V0ZSI6Ii9hcGkvd29ya3NwYWNlcy97aWR9L3Byb2plY3RzIiwicGF0aCI6ImFwaS93b3Jrc3BhY2VzL3cxL3Byb2plY3RzIiwibmV4dCI6IiJ9.g08ydIcRlPG85mAK-csAFTARoRSccMNgidNrXYP5S2k"
)

// TestEarlierTokensStillWork: a token of an earlier release is read with
// its tag ignored, so it works after the key was rotated, and an edit of
// its tag changes nothing.
func TestEarlierTokensStillWork(t *testing.T) {
	t.Parallel()
	path, err := listProjects.path("w1")
	require.NoError(t, err)
	next := "https://api.example.com/v1/api/workspaces/w1/projects?page=2&per_page=10"
	payload, _, _ := strings.Cut(earlierToken, ".")
	tests := []struct {
		name, token, next string
	}{
		{"as it was made", earlierToken, next},
		{"its tag edited", payload + ".AAAA", next},
		{"without its tag", payload, next},
		{"the end of its list", earlierEndToken, ""},
	}
	for _, key := range []string{"sk_old_0123456789", "sk_rotated_0123456789"} {
		c, err := NewClient("https://api.example.com/v1", key)
		require.NoError(t, err)
		for _, tt := range tests {
			got, err := c.resume(path, tt.token)
			require.NoError(t, err, "%s, key %s", tt.name, key)
			assert.Equal(t, tt.next, got, "%s, key %s", tt.name, key)
		}
	}
}

// TestTokenRoundTrip: the URL a token records comes back as it was, a
// page number past 32 bits and a 70 KB cursor included; the token of a
// last page comes back as the end. A URL that holds the key fails the
// check every next page passes before its token is made, and one that
// is not UTF-8 (JSON would change it) fails when the token is made.
func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	c := internalClient(t, "https://api.example.com/prefix")
	path, err := listProjects.path("ws 1")
	require.NoError(t, err)
	list := "https://api.example.com/prefix/api/workspaces/ws%201/projects"
	long := strings.Repeat("c0ffee-", 10_000) // 70 KB
	tests := []struct{ name, next string }{
		{"options", list + "?blank=&cursor=c_9&page=3&per_page=25&status=active&status=paused&%C3%BCn%C3%AF=%C3%A7%C3%B6d%C3%A9+%26%3D%3F"},
		{"a page number past 32 bits", list + "?page=1700000000000"},
		{"a 70 KB cursor", list + "?cursor=" + long},
		{"the end", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token, err := c.token(path, tt.next)
			require.NoError(t, err)
			got, err := c.resume(path, token)
			require.NoError(t, err)
			assert.Equal(t, tt.next, got)
			again, err := c.token(path, got)
			require.NoError(t, err)
			assert.Equal(t, token, again, "the same position gives the same token")
		})
	}

	key := "sk_internal_0123"
	for _, next := range []string{
		list + "?cursor=a" + key,
		list + "?k=" + url.QueryEscape(key),
		list + "?" + key + "=v",
	} {
		assert.Error(t, c.checkNextLink(next, path), next)
	}
	token, err := c.token(path, list+"?cursor=\xff")
	assert.Error(t, err)
	assert.Empty(t, token)
}

// FuzzResumeToken: whatever a token holds, resume does not panic, and a
// token it accepts is the end or names a next link under the base URL on
// the list's own path, and encodes back to the same position.
func FuzzResumeToken(f *testing.F) {
	c, err := NewClient("https://api.example.com/v1", "sk_fuzz_0123456789")
	if err != nil {
		f.Fatal(err)
	}
	path, _ := listWorkspaces.path()
	for _, next := range []string{
		"https://api.example.com/v1/api/workspaces",
		"https://api.example.com/v1/api/workspaces?page=2&per_page=10&q=a&q=b",
		"",
	} {
		token, err := c.token(path, next)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(token)
	}
	f.Add(encoded(tokenData{Path: path, Next: "https://evil.example.com/v1/api/workspaces"}))
	f.Add(encoded(tokenData{Path: path, Next: "https://api.example.com/v1/api/workspaces/%2e%2e/x"}))
	f.Add(earlierToken)
	f.Add("")
	f.Add(".")
	f.Fuzz(func(t *testing.T, token string) {
		next, err := c.resume(path, token)
		if err != nil {
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("error of another kind: %v", err)
			}
			return
		}
		if next != "" {
			u, err := url.Parse(next)
			if err != nil || !c.keyMayGo(u) || u.EscapedPath() != "/v1/"+path {
				t.Fatalf("accepted a next link off the list's path: %q", next)
			}
		}
		again, err := c.token(path, next)
		if err != nil {
			t.Fatalf("an accepted token's position cannot be saved again: %v", err)
		}
		if n2, err := c.resume(path, again); err != nil || n2 != next {
			t.Fatalf("an accepted token does not round-trip: %v", err)
		}
	})
}
