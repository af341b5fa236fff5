package seoapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forge builds a token as an attacker who knows the format would: a
// correct checksum around any content.
func forge(version byte, base [tokenBase]byte, fields func(b []byte) []byte) string {
	b := append([]byte{version}, base[:]...)
	b = fields(b)
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(append(b, sum[:tokenSum]...))
}

// tokenFields appends the fields of a token after its version and base.
func tokenFields(operation, path string, pos position) func(b []byte) []byte {
	return func(b []byte) []byte {
		b = appendString(b, operation)
		b = appendString(b, path)
		b = binary.AppendUvarint(b, uint64(pos.opts.Page))
		b = binary.AppendUvarint(b, uint64(pos.opts.PerPage))
		b = appendString(b, pos.opts.Cursor)
		b = binary.AppendUvarint(b, 0)
		b = appendString(b, pos.nextURL)
		b = binary.AppendUvarint(b, uint64(pos.nextPage))
		return appendString(b, pos.nextCursor)
	}
}

// TestForgedTokensAreRefused: a token with a correct checksum but hostile
// content (a next link to another origin or outside the base path, with
// credentials, another version, out-of-range numbers, trailing bytes) is
// refused with ErrInvalidArgument before anything is sent, and the key
// goes nowhere.
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
		w.Write([]byte(`[{"id":"w1"}]`))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/v1", "sk_internal_0123", WithoutRateLimit())
	require.NoError(t, err)
	base := c.baseHash()
	host := strings.TrimPrefix(srv.URL, "http://")
	const op, path = "Workspaces.List", "api/workspaces"
	next := func(u string) position { return position{nextURL: u, nextPage: 2} }

	tests := []struct {
		name  string
		token string
	}{
		{"next link to another origin", forge(tokenVersion, base, tokenFields(op, path, next(evil.URL+"/v1/api/workspaces?page=2")))},
		{"next link to another port", forge(tokenVersion, base, tokenFields(op, path, next("http://127.0.0.1:1/v1/api/workspaces")))},
		{"next link protocol-relative", forge(tokenVersion, base, tokenFields(op, path, next("//"+strings.TrimPrefix(evil.URL, "http://")+"/v1/api/workspaces")))},
		{"next link outside the base path", forge(tokenVersion, base, tokenFields(op, path, next(srv.URL+"/v2/api/workspaces")))},
		{"next link climbing out of the base path", forge(tokenVersion, base, tokenFields(op, path, next(srv.URL+"/v1/../admin")))},
		{"next link with credentials", forge(tokenVersion, base, tokenFields(op, path, next("http://user:pw@"+host+"/v1/api/workspaces")))},
		{"next link relative", forge(tokenVersion, base, tokenFields(op, path, next("/v1/api/workspaces?page=2")))},
		{"next link not a URL", forge(tokenVersion, base, tokenFields(op, path, next("http://%zz")))},
		{"another version", forge(tokenVersion+1, base, tokenFields(op, path, position{}))},
		{"another base", forge(tokenVersion, [tokenBase]byte{1}, tokenFields(op, path, position{}))},
		{"another operation, same path", forge(tokenVersion, base, tokenFields("Workspaces.Create", path, position{}))},
		{"another path", forge(tokenVersion, base, tokenFields(op, "api/workspaces/x/projects", position{}))},
		{"page out of range", forge(tokenVersion, base, tokenFields(op, path, position{opts: ListOptions{Page: 1 << 40}}))},
		{"trailing bytes", forge(tokenVersion, base, func(b []byte) []byte { return append(tokenFields(op, path, position{})(b), 0) })},
		{"string longer than the token", forge(tokenVersion, base, func(b []byte) []byte { return binary.AppendUvarint(b, 1<<20) })},
		{"extra count larger than the token", forge(tokenVersion, base, func(b []byte) []byte {
			b = appendString(appendString(b, op), path)
			b = append(b, 0, 0)
			b = appendString(b, "")
			return binary.AppendUvarint(b, 1<<30)
		})},
		{"nothing after the base", forge(tokenVersion, base, func(b []byte) []byte { return b })},
		{"longer than any token", strings.Repeat("A", maxToken*2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &ListOptions{Resume: tt.token}
			_, _, err := c.Workspaces.List(context.Background(), opts)
			assert.ErrorIs(t, err, ErrInvalidArgument)
			n := 0
			for page, err := range c.Workspaces.Pages(context.Background(), opts) {
				n++
				assert.Nil(t, page)
				assert.ErrorIs(t, err, ErrInvalidArgument)
			}
			assert.Equal(t, 1, n)
			for _, err := range c.Workspaces.All(context.Background(), opts) {
				assert.ErrorIs(t, err, ErrInvalidArgument)
			}
		})
	}
	assert.Zero(t, hits.Load(), "nothing sent to the API")
	assert.Zero(t, evilHits.Load(), "nothing sent elsewhere")

	// The format as documented: a forged token naming a next link under
	// the base URL is a valid token, and is followed.
	good := forge(tokenVersion, base, tokenFields(op, path, next(srv.URL+"/v1/api/workspaces?page=2")))
	list, _, err := c.Workspaces.List(context.Background(), &ListOptions{Resume: good})
	require.NoError(t, err)
	assert.Len(t, list, 1)
	assert.EqualValues(t, 1, hits.Load())
}

// TestTokenRoundTrip: what a token records comes back as it was, Extra
// included, and every string of it is cleaned of the key.
func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	c := internalClient(t, "https://api.example.com/prefix")
	ep := &listProjects
	path, err := ep.path("ws/1")
	require.NoError(t, err)
	pos := position{
		opts: ListOptions{Page: 3, PerPage: 25, Cursor: "c_9", Extra: url.Values{
			"status": {"active", "paused"}, "empty": {}, "blank": {""}, "ünï": {"çödé &=?"},
		}},
		nextURL:    "https://api.example.com/prefix/api/workspaces/ws%2F1/projects?page=4&per_page=25",
		nextPage:   4,
		nextCursor: "n_1",
	}
	token := c.token(ep, path, &pos)
	got, err := c.resume(ep, path, token)
	require.NoError(t, err)
	assert.Equal(t, pos, got)
	assert.Equal(t, token, c.token(ep, path, &got), "the same position gives the same token")

	key := "sk_internal_0123"
	hostile := position{
		opts:       ListOptions{Cursor: "a" + key, Extra: url.Values{key: {key}}},
		nextURL:    "https://api.example.com/prefix/api/workspaces/ws%2F1/projects?k=" + key,
		nextCursor: key,
	}
	token = c.token(ep, path, &hostile)
	raw, err := base64.RawURLEncoding.DecodeString(token)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), key)
	got, err = c.resume(ep, path, token)
	require.NoError(t, err)
	assert.Equal(t, "a"+redacted, got.opts.Cursor)
	assert.Equal(t, url.Values{redacted: {redacted}}, got.opts.Extra)
	assert.Equal(t, redacted, got.nextCursor)
	assert.NotContains(t, fmt.Sprint(got), key)
}

// FuzzResumeToken: whatever a token holds, resume does not panic, and a
// token it accepts names a next link under the base URL, or none, and
// encodes back to itself.
func FuzzResumeToken(f *testing.F) {
	c, err := NewClient("https://api.example.com/v1", "sk_fuzz_0123456789")
	if err != nil {
		f.Fatal(err)
	}
	ep := &listWorkspaces
	path, _ := ep.path()
	f.Add(c.token(ep, path, &position{}))
	f.Add(c.token(ep, path, &position{opts: ListOptions{Page: 2, PerPage: 10, Extra: url.Values{"q": {"a", "b"}}}}))
	f.Add(c.token(ep, path, &position{nextURL: "https://api.example.com/v1/api/workspaces?page=3", nextPage: 3, nextCursor: "x"}))
	f.Add(forge(tokenVersion, c.baseHash(), tokenFields(ep.operation, path, position{nextURL: "https://evil.example.com/v1/api/workspaces"})))
	f.Add("")
	f.Add("AQ")
	f.Fuzz(func(t *testing.T, token string) {
		pos, err := c.resume(ep, path, token)
		if err != nil {
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("error of another kind: %v", err)
			}
			return
		}
		if pos.nextURL != "" {
			u, err := url.Parse(pos.nextURL)
			if err != nil || !c.keyMayGo(u) {
				t.Fatalf("accepted a next link outside the base URL: %q", pos.nextURL)
			}
		}
		if again := c.token(ep, path, &pos); again != token {
			// Extra's keys are sorted when encoded: a forged token with
			// unsorted or repeated keys decodes to the same options, and
			// encodes differently.
			if p2, err := c.resume(ep, path, again); err != nil || !reflect.DeepEqual(p2, pos) {
				t.Fatalf("an accepted token does not round-trip: %v", err)
			}
		}
	})
}
