package seoapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests hold the helpers of issue 8's hardening to their contract
// where a real server cannot reach: a redirect that changes only the
// scheme, the encodings the redactor must see through, and reading a body
// under the cap.

func internalClient(t *testing.T, baseURL string) *Client {
	t.Helper()
	c, err := NewClient(baseURL, "sk_internal_0123", WithInsecureHTTP())
	require.NoError(t, err)
	return c
}

// TestRedactorFindsEveryForm: each form of a secret a server may echo is
// found, including for secrets holding the characters that start an
// escape, and text without the secret is left alone.
func TestRedactorFindsEveryForm(t *testing.T) {
	t.Parallel()
	each := func(s, format string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, format, r)
		}
		return b.String()
	}
	for _, secret := range []string{
		`sk_live_Ab/+<x>&"Zq/9y`,
		`sk_100%_sure`,
		`sk\back\slash`,
		`sk_ünï_cødé`,
		`&&&&`,
	} {
		r := newRedactor(secret)
		forms := map[string]string{
			"raw":          secret,
			"json":         strings.Trim(mustJSON(t, secret), `"`),
			"json slash":   strings.ReplaceAll(strings.Trim(mustJSON(t, secret), `"`), "/", `\/`),
			"u lower":      each(secret, `\u%04x`),
			"u upper":      each(secret, `\u%04X`),
			"query escape": url.QueryEscape(secret),
			"path escape":  url.PathEscape(secret),
		}
		if !strings.ContainsFunc(secret, func(r rune) bool { return r > 0x7f }) {
			forms["percent lower"] = each(secret, "%%%02x")
			forms["percent upper"] = each(secret, "%%%02X")
		}
		for name, form := range forms {
			t.Run(secret+"/"+name, func(t *testing.T) {
				// A secret ending in '&', '%' or '\' may leave the tail of
				// its last escape behind: harmless, the secret is gone.
				got := r.string("before " + form + " after")
				assert.True(t, strings.HasPrefix(got, "before "+redacted), "form %q gave %q", form, got)
				assert.True(t, strings.HasSuffix(got, " after"), "form %q gave %q", form, got)
				assert.NotContains(t, got, form)
			})
		}
	}
	t.Run("clean text untouched", func(t *testing.T) {
		r := newRedactor(`sk_live_Ab/+<x>&"Zq/9y`)
		for _, s := range []string{"", "sk_live_Ab/+<x>&", `{"error":"\u0041 &amp; %2F"}`, "&#;&#x;&;%", `\`} {
			assert.Equal(t, s, r.string(s))
			b := []byte(s)
			assert.Equal(t, b, r.bytes(b))
		}
	})
	t.Run("header names and values", func(t *testing.T) {
		r := newRedactor("sk_live_x/y")
		h := http.Header{"X-Echo": {"key sk_live_x%2Fy"}, "X-Sk_live_x/y": {"v"}, "X-Clean": {"ok"}}
		got := cleanHeader(r, h)
		assert.Equal(t, "key "+redacted, got.Get("X-Echo"))
		assert.Equal(t, "ok", got.Get("X-Clean"))
		for k := range got {
			assert.NotContains(t, k, "sk_live_x/y")
		}
		assert.Equal(t, "key sk_live_x%2Fy", h.Get("X-Echo"), "the response's own header is not changed")
	})
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// TestReadCapped: a body is read whole within the limit; one longer than
// the limit fails with errBodyTooLarge and keeps at most maxErrorBody
// bytes; a cut body fails with what arrived.
func TestReadCapped(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("abcdefgh", 1000) // 8000 bytes
	tests := []struct {
		name    string
		r       io.Reader
		length  int64
		limit   int64
		want    string
		wantErr error
	}{
		{"known length", strings.NewReader(body), 8000, 8000, body, nil},
		{"unknown length", strings.NewReader(body), -1, 8000, body, nil},
		{"unknown length in small reads", iotest.OneByteReader(strings.NewReader(body)), -1, 8000, body, nil},
		{"known length over the limit", strings.NewReader(body), 8000, 7999, "", errBodyTooLarge},
		{"unknown length over the limit", strings.NewReader(body), -1, 7999, "", errBodyTooLarge},
		{"cut with a length", strings.NewReader(body[:13]), 100, 8000, body[:13], io.ErrUnexpectedEOF},
		{"empty", strings.NewReader(""), 0, 10, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readCapped(tc.r, tc.length, tc.limit)
			if tc.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, string(got))
				return
			}
			require.True(t, errors.Is(err, tc.wantErr), "error %v, want %v", err, tc.wantErr)
			assert.LessOrEqual(t, len(got), maxErrorBody)
			assert.True(t, strings.HasPrefix(body, string(got)), "what was read is the body's start")
			if tc.want != "" {
				assert.Equal(t, tc.want, string(got))
			}
		})
	}
	t.Run("longer than its Content-Length", func(t *testing.T) {
		_, err := readCapped(strings.NewReader(body), 100, 8000)
		assert.Error(t, err)
	})
}
