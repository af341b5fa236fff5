package seoapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
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

// signed builds a token of any content with c's own tag, as only code
// holding c's API key can: what resume must still refuse.
func signed(c *Client, d tokenData) string {
	data, err := json.Marshal(&d)
	if err != nil {
		panic(err)
	}
	payload := base64.RawURLEncoding.EncodeToString(data)
	return payload + "." + base64.RawURLEncoding.EncodeToString(c.tokenTag(payload))
}

// withTag builds a token of content d with the tag tag(payload): a forger
// who does not hold the key.
func withTag(d tokenData, tag func(payload string) []byte) string {
	data, _ := json.Marshal(&d)
	payload := base64.RawURLEncoding.EncodeToString(data)
	return payload + "." + base64.RawURLEncoding.EncodeToString(tag(payload))
}

// TestForgedTokensAreRefused: a token whose tag was not made with the
// client's key, or a correctly signed one whose content is hostile (a
// next link to another origin, outside the base path, or off the list's
// own path; another list; another version), is refused
// with ErrInvalidArgument before anything is sent, and the key goes
// nowhere.
func TestForgedTokensAreRefused(t *testing.T) {
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
	ep := &listProjects
	path, err := ep.path("w1")
	require.NoError(t, err)
	tok := func(next string) tokenData {
		return tokenData{V: tokenVersion, Route: ep.route, Path: path, Next: next}
	}
	plain := tok(srv.URL + "/v1/api/workspaces/w1/projects?page=2")
	other, err := NewClient(srv.URL+"/v1", "sk_internal_other", WithoutRateLimit())
	require.NoError(t, err)

	tests := []struct {
		name  string
		token string
	}{
		{"next link to another workspace's API keys", signed(c, tok(srv.URL+"/v1/api/workspaces/OTHER/api-keys?page=2"))},
		{"next link to a sub-path of the list", signed(c, tok(srv.URL+"/v1/api/workspaces/w1/projects/x"))},
		{"next link with an encoded dot segment", signed(c, tok(srv.URL+"/v1/%2e%2e/admin/api/workspaces/w1/projects"))},
		{"next link to another origin", signed(c, tok(evil.URL+"/v1/api/workspaces/w1/projects?page=2"))},
		{"next link to another port", signed(c, tok("http://127.0.0.1:1/v1/api/workspaces/w1/projects"))},
		{"next link protocol-relative", signed(c, tok("//"+strings.TrimPrefix(evil.URL, "http://")+"/v1/api/workspaces/w1/projects"))},
		{"next link outside the base path", signed(c, tok(srv.URL+"/v2/api/workspaces/w1/projects"))},
		{"next link with credentials", signed(c, tok("http://user:pw@"+host+"/v1/api/workspaces/w1/projects"))},
		{"next link relative", signed(c, tok("/v1/api/workspaces/w1/projects?page=2"))},
		{"next link not a URL", signed(c, tok("http://%zz"))},
		{"another version", signed(c, tokenData{V: tokenVersion + 1, Route: ep.route, Path: path})},
		{"another route, same path", signed(c, tokenData{V: tokenVersion, Route: listAPIKeys.route, Path: path})},
		{"another path", signed(c, tokenData{V: tokenVersion, Route: ep.route, Path: "api/workspaces/w2/projects"})},
		{"tagged with a plain SHA-256", withTag(plain, func(p string) []byte { s := sha256.Sum256([]byte(p)); return s[:] })},
		{"tagged with another key", signed(other, plain)},
		{"tagged with the key itself, not the derived one", withTag(plain, func(p string) []byte {
			m := hmac.New(sha256.New, []byte("sk_internal_0123"))
			m.Write([]byte(p))
			return m.Sum(nil)
		})},
		{"no tag", strings.Split(signed(c, plain), ".")[0]},
		{"JSON that is not a token", signedRaw(c, `[1,2]`)},
		{"longer than any token", strings.Repeat("A", maxToken+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &ListOptions{Resume: tt.token}
			_, _, err := c.Projects.List(context.Background(), "w1", opts)
			assert.ErrorIs(t, err, ErrInvalidArgument)
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

	// A signed token whose next link is the list's own path is followed.
	good := signed(c, tok(srv.URL+"/v1/api/workspaces/w1/projects?page=2"))
	list, _, err := c.Projects.List(context.Background(), "w1", &ListOptions{Resume: good})
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.EqualValues(t, 1, hits.Load())
}

// signedRaw is a token whose payload is data, tagged by c.
func signedRaw(c *Client, data string) string {
	payload := base64.RawURLEncoding.EncodeToString([]byte(data))
	return payload + "." + base64.RawURLEncoding.EncodeToString(c.tokenTag(payload))
}

// TestTokenRoundTrip: the URL a token records comes back as it was, a
// page number past 32 bits and a 70 KB cursor included; the token of a
// last page comes back as the end. A URL a token cannot say without
// changing it (holding the key, or not UTF-8) fails when the token is
// made.
func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	c := internalClient(t, "https://api.example.com/prefix")
	ep := &listProjects
	path, err := ep.path("ws 1")
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
			token, err := c.token(ep, path, tt.next)
			require.NoError(t, err)
			got, err := c.resume(ep, path, token)
			require.NoError(t, err)
			assert.Equal(t, tt.next, got)
			again, err := c.token(ep, path, got)
			require.NoError(t, err)
			assert.Equal(t, token, again, "the same position gives the same token")
		})
	}

	key := "sk_internal_0123"
	for _, next := range []string{
		list + "?cursor=a" + key,
		list + "?k=" + url.QueryEscape(key),
		list + "?" + key + "=v",
		list + "?cursor=\xff",
	} {
		token, err := c.token(ep, path, next)
		assert.Error(t, err, next)
		assert.Empty(t, token)
	}
}

// FuzzResumeToken: whatever a token holds, resume does not panic, and a
// token it accepts is the end or names a next link under the base URL on
// the list's own path, and encodes back to the same position.
func FuzzResumeToken(f *testing.F) {
	c, err := NewClient("https://api.example.com/v1", "sk_fuzz_0123456789")
	if err != nil {
		f.Fatal(err)
	}
	ep := &listWorkspaces
	path, _ := ep.path()
	for _, next := range []string{
		"https://api.example.com/v1/api/workspaces",
		"https://api.example.com/v1/api/workspaces?page=2&per_page=10&q=a&q=b",
		"",
	} {
		token, err := c.token(ep, path, next)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(token)
	}
	f.Add(signed(c, tokenData{V: tokenVersion, Route: ep.route, Path: path, Next: "https://evil.example.com/v1/api/workspaces"}))
	f.Add("")
	f.Add(".")
	f.Fuzz(func(t *testing.T, token string) {
		next, err := c.resume(ep, path, token)
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
		again, err := c.token(ep, path, next)
		if err != nil {
			t.Fatalf("an accepted token's position cannot be saved again: %v", err)
		}
		if n2, err := c.resume(ep, path, again); err != nil || n2 != next {
			t.Fatalf("an accepted token does not round-trip: %v", err)
		}
	})
}
