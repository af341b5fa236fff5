package seoapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The redactor's benchmarks: a clean error body and one holding the key in
// several encodings, and the headers of an ordinary response, which every
// call passes through answer() and which must cost no allocation. Compare
// runs with benchstat:
//
//	go test -run '^$' -bench '^BenchmarkRedact' -count 10 . > new.txt
//	go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da old.txt new.txt

// benchKey has the characters JSON, URLs and HTML escape.
const benchKey = `sk_live_Ab/+<x>&"Zq/9y`

// cleanBody returns about size bytes of error bodies that hold no form of
// benchKey but the escapes and near misses a real body holds.
func cleanBody(size int) []byte {
	const chunk = `{"error":"validation_failed","message":"The field \"name\" is invalid: ` +
		`see https://docs.example.com/errors?code=4%20x&amp;lang=en \u00e9t\u00e9 \/ tasks skipped",` +
		`"details":[{"field":"name","issue":"must be at most 64 characters"}],"request_id":"req_8f3a9c2e"}` + "\n"
	return bytes.Repeat([]byte(chunk), size/len(chunk)+1)[:size]
}

// keyForms returns key in the encodings a server may echo it in, each
// named.
func keyForms(key string) map[string]string {
	jsonOnce := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}
	each := func(format string) string {
		var b strings.Builder
		for _, r := range key {
			fmt.Fprintf(&b, format, r)
		}
		return b.String()
	}
	jsonEach := func() string { // UTF-16, as JSON escapes a character past U+FFFF
		var b strings.Builder
		for _, u := range utf16.Encode([]rune(key)) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
		return b.String()
	}
	eachByte := func(format string) string {
		var b strings.Builder
		for _, c := range []byte(key) {
			fmt.Fprintf(&b, format, c)
		}
		return b.String()
	}
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + key))
	return map[string]string{
		"raw":                         key,
		"upper-cased":                 strings.ToUpper(key),
		"JSON":                        jsonOnce(key),
		"JSON with \\/":               strings.ReplaceAll(jsonOnce(key), "/", `\/`),
		"JSON \\u each":               jsonEach(),
		"JSON upper-cased":            strings.ToUpper(jsonEach()),
		"JSON escaped twice":          jsonOnce(jsonOnce(key)),
		"JSON \\/ escaped twice":      jsonOnce(strings.ReplaceAll(jsonOnce(key), "/", `\/`)),
		"percent":                     url.QueryEscape(key),
		"percent each":                eachByte("%%%02X"),
		"percent twice":               url.QueryEscape(url.QueryEscape(key)),
		"percent with \\u0025":        strings.ReplaceAll(eachByte("%%%02x"), "%", `\u0025`),
		"HTML":                        html.EscapeString(key),
		"HTML decimal":                each("&#%d;"),
		"HTML decimal, no ';'":        each("&#%d"),
		"base64":                      base64.StdEncoding.EncodeToString([]byte(key)),
		"base64 unpadded":             base64.RawStdEncoding.EncodeToString([]byte(key)),
		"base64 URL":                  base64.URLEncoding.EncodeToString([]byte(key)),
		"base64 URL unpadded":         base64.RawURLEncoding.EncodeToString([]byte(key)),
		"base64 upper-cased key":      base64.StdEncoding.EncodeToString([]byte(strings.ToUpper(key))),
		"base64 of user:key":          basic,
		"base64 of user:key in JSON":  strings.ReplaceAll(basic, "/", `\/`),
		"base64 of user:key, percent": url.QueryEscape(basic),
		"base64 after a binary byte":  base64.RawURLEncoding.EncodeToString(append([]byte{0xff}, key...)),
		"form-encoded Basic":          url.Values{"Authorization": {"Basic " + basic}}.Encode(),
	}
}

func BenchmarkRedact(b *testing.B) {
	dirty := cleanBody(64 << 10)
	for _, form := range keyForms(benchKey) {
		dirty = append(dirty, " "+form+" "...)
	}
	for _, c := range []struct {
		name string
		body []byte
	}{{"clean-64KiB", cleanBody(64 << 10)}, {"dirty-64KiB", dirty}} {
		b.Run(c.name, func(b *testing.B) {
			r := newRedactor(benchKey)
			b.SetBytes(int64(len(c.body)))
			b.ReportAllocs()
			for b.Loop() {
				r.bytes(c.body)
			}
		})
	}
}

// benchHeader is the header of an ordinary response.
func benchHeader() http.Header {
	return http.Header{
		"Content-Type":          {"application/json; charset=utf-8"},
		"Date":                  {"Tue, 24 Nov 2026 04:44:36 GMT"},
		"X-Request-Id":          {"0f8fad5b-d9cb-469f-a165-70867728950e"},
		"X-Ratelimit-Limit":     {"10000"},
		"X-Ratelimit-Remaining": {"9876"},
		"X-Ratelimit-Reset":     {"1795927476"},
		"Cache-Control":         {"no-store, max-age=0"},
		"Etag":                  {`W/"33a64df551425fcc55e4d42a148795d9f25f89d4"`},
		"Vary":                  {"Accept-Encoding, Authorization"},
		"Content-Length":        {"1843"},
	}
}

// cleanHeader is h as answer leaves it in a response.
func cleanHeader(r *redactor, h http.Header) http.Header {
	resp := &http.Response{Status: "200 OK", Header: h}
	r.answer(resp)
	return resp.Header
}

// BenchmarkRedactHeader is the path every response takes.
func BenchmarkRedactHeader(b *testing.B) {
	r := newRedactor(benchKey)
	resp := &http.Response{Status: "200 OK", Header: benchHeader()}
	b.ReportAllocs()
	for b.Loop() {
		r.answer(resp)
	}
}

// TestRedactHeaderCleanAllocatesNothing: the status and header of an
// ordinary response pass answer() without an allocation, and are kept.
func TestRedactHeaderCleanAllocatesNothing(t *testing.T) {
	r := newRedactor(benchKey)
	h := benchHeader()
	resp := &http.Response{Status: "200 OK", Header: h}
	allocs := testing.AllocsPerRun(1000, func() { r.answer(resp) })
	assert.Zero(t, allocs)
	assert.Equal(t, reflect.ValueOf(h).Pointer(), reflect.ValueOf(resp.Header).Pointer())
	assert.Equal(t, "200 OK", resp.Status)
}

// TestRedactorText holds what string() makes of a text: plain occurrences
// replaced in place in any letter case, then a JSON string or a word
// holding a decoded form replaced whole.
func TestRedactorText(t *testing.T) {
	t.Parallel()
	const key = "sk_live_Ab/+9y"
	b64 := base64.StdEncoding.EncodeToString([]byte("user:" + key))
	for _, tc := range []struct {
		name, text, want string
	}{
		{"raw", "a sk_live_Ab/+9y b", "a [REDACTED] b"},
		{"upper-cased", "INVALID KEY SK_LIVE_AB/+9Y.", "INVALID KEY [REDACTED]."},
		{"mixed case", "key Sk_LiVe_ab/+9Y!", "key [REDACTED]!"},
		{"adjacent", key + " " + key + key, "[REDACTED] [REDACTED]"},
		{"overlapping", "sk_live_Ab/+9y_live_Ab/+9y", "[REDACTED]_live_Ab/+9y"},
		{"percent-encoded word", "bad key sk_live_Ab%2F%2B9y here", "bad key [REDACTED] here"},
		{"JSON string", `{"error":"bad key sk_live_Ab\/+9y","code":401}`, `{"error":"[REDACTED]","code":401}`},
		{"JSON escaped twice", `{"upstream":"{\"error\":\"bad key sk_live_Ab\\\/+9y\"}"}`, `{"upstream":"[REDACTED]"}`},
		{"percents written \\u0025", `{"url":"/k?key=sk_live_Ab\u00252F\u00252B9y"}`, `{"url":"[REDACTED]"}`},
		{"base64 Basic credentials", "echo: Authorization: Basic " + b64, "echo: Authorization: Basic [REDACTED]=="},
		{"plain and encoded", "sk_live_Ab/+9y or sk_live_Ab%2F%2B9y", "[REDACTED] or [REDACTED]"},
		{"spread over words", `sk_live_Ab\u002F\u002B9y`, "[REDACTED]"},
		{"near miss", "sk_live_Ab/+9z sk_live_Ab%2F%2B9z", "sk_live_Ab/+9z sk_live_Ab%2F%2B9z"},
		{"clean escapes", `{"msg":"50% \u00e9 &amp; \/"}`, `{"msg":"50% \u00e9 &amp; \/"}`},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRedactor(key)
			assert.Equal(t, tc.want, r.string(tc.text))
			assert.Equal(t, tc.want, string(r.bytes([]byte(tc.text))))
		})
	}
	t.Run("an empty key redacts nothing", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, "anything %41 \\u0041", newRedactor("").string("anything %41 \\u0041"))
	})
}

// TestRedactorEveryForm: each encoding a server may echo the key in is
// caught, in a message, a JSON error body and a gateway's JSON quoting its
// upstream's, and the rest of the text is kept.
func TestRedactorEveryForm(t *testing.T) {
	t.Parallel()
	for _, key := range []string{benchKey, `sk_100%_sure`, `sk\back\slash`, `sk_ünï_cødé`} {
		r := newRedactor(key)
		for name, form := range keyForms(key) {
			upstream, _ := json.Marshal(map[string]string{"error": "invalid key " + form})
			gateway, _ := json.Marshal(map[string]string{"error": "upstream failed", "upstream": string(upstream)})
			for _, text := range []string{"before " + form + " after", string(upstream), string(gateway)} {
				got := r.string(text)
				assert.False(t, r.holds(got, maxRounds), "%s / %s: %q gave %q", key, name, text, got)
				assert.NotContains(t, got, form, "%s / %s", key, name)
				assert.NotEqual(t, redacted, got, "%s / %s: %q redacted whole", key, name, text)
			}
			assert.Contains(t, r.string(string(gateway)), `{"error":"upstream failed","upstream":"`, "%s / %s", key, name)
		}
	}
}

// TestRedactorHeader holds answer() on a header: a value holding a decoded form is
// replaced whole, a plain occurrence in place, names too, and the header
// passed in is left as it was.
func TestRedactorHeader(t *testing.T) {
	t.Parallel()
	r := newRedactor(benchKey)
	forms := keyForms(benchKey)
	h := http.Header{
		"X-Echo":               {"Bearer " + benchKey},
		"X-Echo-Upper":         {"Bearer " + strings.ToUpper(benchKey)},
		"X-Echo-Authorization": {"Basic " + forms["base64 of user:key"]},
		"Www-Authenticate":     {`Bearer error_description="key ` + forms["JSON escaped twice"] + `"`},
		"Location":             {"/api/echo?k=" + forms["percent twice"]},
		"X-" + benchKey:        {"v"},
		"X-Clean":              {"ok", "a%2Fb"},
	}
	before := h.Clone()
	got := cleanHeader(r, h)
	assert.Equal(t, http.Header{
		"X-Echo":               {"Bearer [REDACTED]"},
		"X-Echo-Upper":         {"Bearer [REDACTED]"},
		"X-Echo-Authorization": {"Basic [REDACTED]"},
		"Www-Authenticate":     {`Bearer error_description="[REDACTED]"`},
		"Location":             {"/api/echo?k=[REDACTED]"},
		"X-[REDACTED]":         {"v"},
		"X-Clean":              {"ok", "a%2Fb"},
	}, got)
	assert.Equal(t, before, h, "the header passed in is not changed")
	assert.Nil(t, cleanHeader(r, nil))
}

// TestRedactorHeldBehindPointer: the structs of a Client that hold its
// redactor print, with every verb, an address rather than the key, even
// through an unexported field fmt reads by reflection.
func TestRedactorHeldBehindPointer(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://api.example.com", benchKey)
	require.NoError(t, err)
	for _, v := range []any{
		struct{ client Client }{*c},
		struct{ redact any }{c.redact},
		struct{ redact *redactor }{c.redact},
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%t"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, "sk_live", verb)
		}
	}
}

// TestRedactorRounds: a text is read through up to maxRounds decodings
// one inside another, and no further.
func TestRedactorRounds(t *testing.T) {
	t.Parallel()
	r := newRedactor(benchKey)
	deep := benchKey
	for range maxRounds {
		deep = url.QueryEscape(deep)
	}
	assert.True(t, r.holds(deep, maxRounds), "four rounds of percent-encoding")
	assert.False(t, r.holds(url.QueryEscape(deep), maxRounds), "five rounds of percent-encoding are past the bound")
	quoted, err := json.Marshal(url.QueryEscape(html.EscapeString(benchKey)))
	require.NoError(t, err)
	mixed := base64.StdEncoding.EncodeToString(quoted)
	assert.True(t, r.holds(mixed, maxRounds), "base64 of JSON of percent of HTML")
}

// TestRedactorBase64AtAnyAlignment: the key's base64 is found wherever the
// key's bytes start, also when other base64 characters are glued in front
// of it (so the run does not start where the key's first byte does), in
// either alphabet, padded or not; a key with one bit changed inside is not
// taken for the key.
func TestRedactorBase64AtAnyAlignment(t *testing.T) {
	t.Parallel()
	encodings := map[string]*base64.Encoding{
		"std": base64.StdEncoding, "std unpadded": base64.RawStdEncoding,
		"URL": base64.URLEncoding, "URL unpadded": base64.RawURLEncoding,
	}
	forms := map[string]func(enc *base64.Encoding, key string) string{
		"form-encoded Basic": func(enc *base64.Encoding, key string) string {
			return url.Values{"Authorization": {"Basic " + enc.EncodeToString([]byte("user:"+key))}}.Encode()
		},
		"token_ prefix": func(enc *base64.Encoding, key string) string {
			return "token_" + enc.EncodeToString([]byte(key))
		},
		"one binary byte first": func(enc *base64.Encoding, key string) string { return enc.EncodeToString(append([]byte{0xff}, key...)) },
		"two binary bytes first": func(enc *base64.Encoding, key string) string {
			return enc.EncodeToString(append([]byte{0xfe, 0x00}, key...))
		},
		"four binary bytes first": func(enc *base64.Encoding, key string) string {
			return enc.EncodeToString(append([]byte{1, 0x80, 0xc0, 0xff}, key...))
		},
		"binary bytes on each side": func(enc *base64.Encoding, key string) string {
			return enc.EncodeToString(append(append([]byte{0xc3}, key...), 0xff, 0x00))
		},
	}
	for i, key := range []string{benchKey, "sk_12345", `sk_ünï_cødé`, "sk_live_" + strings.Repeat("Zq9", 20)} {
		r := newRedactor(key)
		miss := []byte(key)
		miss[4] ^= 1 // a bit every form encodes
		for name, form := range forms {
			for encName, enc := range encodings {
				t.Run(fmt.Sprintf("key %d/%s/%s", i, name, encName), func(t *testing.T) {
					t.Parallel()
					text := "echo: " + form(enc, key) + " done"
					got := r.string(text)
					assert.True(t, r.holds(text, maxRounds), "%q: %q not found", key, text)
					assert.False(t, r.holds(got, maxRounds), "%q: %q gave %q", key, text, got)
					assert.Equal(t, "echo: ", got[:6], "the text around the unit is kept")
					near := "echo: " + form(enc, string(miss)) + " done"
					assert.Equal(t, near, r.string(near), "%q: a near miss is kept", key)
				})
			}
		}
	}
}

// TestSecretValues holds which values secretValues finds in an API key
// answer: those of the members named as APIKey's secret, at any depth, in
// order, a duplicate name's values included, and which bodies it gives up
// on (the caller withholds them).
func TestSecretValues(t *testing.T) {
	t.Parallel()
	var many strings.Builder
	for i := range maxSecretValues + 1 {
		fmt.Fprintf(&many, `{"token":"secret_%02d"},`, i)
	}
	for _, tc := range []struct {
		name string
		body string
		want []string
		ok   bool
	}{
		{"none", `{"error":"boom","code":"internal"}`, nil, true},
		{"empty body", " ", nil, true},
		{"top level", `{"id":"k1","key":"sk_new_1"}`, []string{"sk_new_1"}, true},
		{"every name", `{"key":"v1","apiKey":"v2","api_key":"v3","API-KEY":"v4","Token":"v5","secret":"v6"}`,
			[]string{"v1", "v2", "v3", "v4", "v5", "v6"}, true},
		{"nested", `{"error":{"detail":{"created":[{"secret":"deep_1"}]}},"data":{"apikey":"deep_2"}}`, []string{"deep_1", "deep_2"}, true},
		{"a duplicate name keeps both values", `{"key":"first_1","key":"second_2"}`, []string{"first_1", "second_2"}, true},
		{"escaped name and value", `{"\u006bey":"sk\/new\u005f\"1\\"}`, []string{`sk/new_"1\`}, true},
		{"other names ignored", `{"keys":"a","tokenId":"b","secretary":"c","name":"key","value":"token"}`, nil, true},
		{"a value named key is not a name", `["key","sk_x"]`, nil, true},
		{"not strings", `{"key":123,"token":null,"secret":{"id":"s1"},"apiKey":["a"],"n":1e999}`, nil, true},
		{"repeats and placeholders", `{"key":"v1","token":"v1","secret":"","apiKey":"[REDACTED]"}`, []string{"v1"}, true},
		{"JSON in a string", `{"error":"upstream said {\"key\":\"sk_emb_1\"}"}`, nil, false},
		{"JSON in a string, a secret after it", `{"id":"k1","metadata":"{\"scopes\":[\"read\"]}","key":"sk_new_9a8b7c6d5e4f3a2b1c0d"}`,
			[]string{"sk_new_9a8b7c6d5e4f3a2b1c0d"}, false},
		{"a secret as deep as encoding/json reads", strings.Repeat("[", 9999) + `{"key":"sk_deep_1"}` + strings.Repeat("]", 9999),
			[]string{"sk_deep_1"}, true},
		{"nested deeper than encoding/json reads", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), nil, false},
		{"JSON in a member name", `{"{\"key\":\"sk_emb_1\"}":1}`, nil, false},
		{"braces that start no object", `{"error":"field {name} is required, {} given"}`, nil, true},
		{"cut short", `{"error":"boom","key":"sk_new_12`, nil, false},
		{"cut after a secret", `{"key":"sk_new_SECRET0123456789", "id": [`, []string{"sk_new_SECRET0123456789"}, false},
		{"not JSON", `<html>key: sk_x</html>`, nil, false},
		{"too many", "[" + strings.TrimSuffix(many.String(), ",") + "]", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := secretValues([]byte(tc.body))
			assert.Equal(t, tc.ok, ok)
			if tc.ok || tc.want != nil {
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

// TestWithSecretsInAWithheldBody: a body cut after a secret, or with a
// string holding a JSON object before one, is withheld, and the secret is
// still cleaned from other text (the headers and request ID may echo it),
// whatever Go's encoding/json says of a cut body.
func TestWithSecretsInAWithheldBody(t *testing.T) {
	t.Parallel()
	const secret = "sk_new_SECRET0123456789"
	for _, body := range []string{
		`{"key":"` + secret + `", "id": [`,
		`{"id":"k1","metadata":"{\"scopes\":[\"read\"]}","key":"` + secret + `"}`,
	} {
		r, ok := newRedactor("sk_live_key_0001").withSecretsIn([]byte(body))
		assert.False(t, ok, "withheld: %s", body)
		assert.Equal(t, "id "+redacted, r.string("id "+secret), "the secret is cleaned from a header: %s", body)
	}
}

// TestWithSecretsIn: an error body holding a created key's secret is
// cleaned of it in every form; one whose secrets cannot be redacted (one
// shorter than MinAPIKeyLength characters or with white space, or a body
// that cannot be read) is to be withheld, and the secrets read before are
// still cleaned from other text; the redactor it extends is left as it
// was.
func TestWithSecretsIn(t *testing.T) {
	t.Parallel()
	base := newRedactor("sk_live_key_0001")
	const secret = `sk_new/+<&>"x_9`
	for _, tc := range []struct {
		name string
		body string
		ok   bool
	}{
		{"JSON as Go writes it", `{"error":"internal","key":{"id":"k1","key":"sk_new\/+\u003c\u0026\u003e\"x_9"},"echo":"sk_new/+<&>\"x_9"}`, true},
		{"percent-encoded elsewhere", `{"token":"sk_new/+<&>\"x_9","retry":"/keys?t=sk_new%2F%2B%3C%26%3E%22x_9"}`, true},
		{"base64 elsewhere", `{"token":"sk_new/+<&>\"x_9","note":"` + base64.StdEncoding.EncodeToString([]byte(secret)) + `"}`, true},
		{"eight characters", `{"key":"12345678","note":"12345678"}`, true},
		{"seven characters", `{"key":"1234567","note":"sk_new/+<&>\"x_9"}`, false},
		{"five characters in ten bytes", `{"key":"ééééé"}`, false},
		{"white space", `{"key":"sk_new with_space"}`, false},
		{"cut short", `{"detail":"sk_new/+<&>\"x_9","secret":"sk_new/+<&>\"x_9`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, ok := base.withSecretsIn([]byte(tc.body))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, "sk_new_key_0002 12345678", base.string("sk_new_key_0002 12345678"), "the base redactor is unchanged")
			if !ok {
				return
			}
			clean := string(r.bytes([]byte(tc.body)))
			assert.Contains(t, clean, redacted)
			assert.False(t, r.holds(clean, maxRounds), clean)
			for _, form := range []string{secret, `sk_new\/`, `sk_new%2F`, `x_9`, "12345678"} {
				assert.NotContains(t, clean, form)
			}
			assert.Equal(t, "sk_new_key_0002 12345678", base.string("sk_new_key_0002 12345678"), "the base redactor is unchanged")
		})
	}
}

// FuzzRedactor holds the redactor to its promise on any text: what it
// returns holds no secret in any form it decodes, a text holding none is
// returned as it is, and the key put into a text in any of the encodings
// of keyForms is found.
func FuzzRedactor(f *testing.F) {
	f.Add("sk_live_12345678", []byte(`{"error":"x"}`), uint8(0))
	f.Add(benchKey, []byte(`a\b&c%d e`), uint8(3))
	f.Add(`sk\\z_100%`, []byte(`\\\\\\z %25%25 &amp;&`), uint8(7))
	f.Fuzz(func(t *testing.T, key string, text []byte, form uint8) {
		if utf8.RuneCountInString(key) < MinAPIKeyLength || !utf8.ValidString(key) || strings.ContainsFunc(key, isSpaceOrControl) || len(text) > 1024 {
			t.Skip("not a key NewClient accepts, or a text longer than fuzzing needs")
		}
		r := newRedactor(key)
		forms := keyForms(key)
		names := make([]string, 0, len(forms))
		for name := range forms {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, s := range []string{string(text), string(text) + " " + forms[names[int(form)%len(names)]] + " " + string(text)} {
			got := r.string(s)
			if r.holds(got, maxRounds) {
				t.Fatalf("key %q: %q gave %q, which still holds it", key, s, got)
			}
			if !r.holds(s, maxRounds) && got != s {
				t.Fatalf("key %q: %q holds no form but gave %q", key, s, got)
			}
			if b := r.bytes([]byte(s)); string(b) != got {
				t.Fatalf("bytes and string disagree on %q", s)
			}
		}
		if s := forms[names[int(form)%len(names)]]; !r.holds(s, maxRounds) {
			t.Fatalf("key %q: form %q not found", key, s)
		}
	})
}

// FuzzSecretValues holds secretValues to its promises on any input: no
// panic, at most maxSecretValues values, none empty, and a body the
// extended redactor cleans holds none of them.
func FuzzSecretValues(f *testing.F) {
	for _, seed := range []string{
		`{"key":"sk_new_1234","nested":{"token":"sk\/x\u0041_5678"}}`, `{"secret":"sk_cut\u00`, `[{"apiKey":"a"},{"api_key":"bbbbbbbbbb"}]`,
		`{"key":"\"}`, `"key":"x":"y"`, `{"e":"{\"key\":\"sk_emb_12345\"}"}`, `{"KEY":"sk_1234567890","key":"sk_1234567890"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		values, ok := secretValues(body)
		if !ok {
			return
		}
		if len(values) > maxSecretValues || slices.Contains(values, "") {
			t.Fatalf("values %q", values)
		}
		r, ok := newRedactor("sk_live_key_0001").withSecretsIn(body)
		if !ok {
			return
		}
		if clean := r.bytes(body); r.holds(string(clean), maxRounds) {
			t.Fatalf("%q still holds a secret of %q", clean, values)
		}
	})
}

// isSpaceOrControl is what NewClient refuses in a key.
func isSpaceOrControl(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }

// TestLooseSecretScanIsBounded: the text scan of a body that is not JSON
// to its end costs the same for a body four times as long, whatever the
// body repeats: it reads a fixed number of members. It measures
// allocation with MemStats, so it does not run in parallel.
func TestLooseSecretScanIsBounded(t *testing.T) {
	allocated := func(body []byte) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		secretValues(body)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, unit := range []string{`"key":"`, `"a":"`, `"x":"\`} {
		small := allocated(bytes.Repeat([]byte(unit), 1<<20/len(unit)))
		large := allocated(bytes.Repeat([]byte(unit), 4<<20/len(unit)))
		if large > 2*small+1<<20 {
			t.Errorf("%s repeated: %d bytes allocated for 4 MiB, %d for 1 MiB", unit, large, small)
		}
	}
}

// TestRedactorCaseFoldsOfOtherLengths: a letter whose case fold takes
// another number of bytes (ſ for s, the Kelvin sign for k) is the key's
// letter, for strings.EqualFold as for the pattern's (?i), and is cleaned.
func TestRedactorCaseFoldsOfOtherLengths(t *testing.T) {
	t.Parallel()
	const key = "sk_live_Abi9xyz"
	r := newRedactor(key)
	for _, echo := range []string{strings.ReplaceAll(key, "s", "ſ"), strings.ReplaceAll(key, "k", "\u212a")} {
		if !strings.EqualFold(echo, key) || !r.plain.MatchString(echo) {
			t.Fatalf("%q: not a letter-case form of the key", echo)
		}
		if got := r.string("bad key " + echo); strings.Contains(got, echo) {
			t.Errorf("%q kept: %q", echo, got)
		}
	}
}

// TestRedactorNestedBase64GluedToAWord: base64 of an escaped key glued to
// a word or a path ("token_", "/v1/keys/"), at any alignment and in either
// alphabet, is cleaned, in the redactor and in the APIError of a 400 that
// echoes it.
func TestRedactorNestedBase64GluedToAWord(t *testing.T) {
	t.Parallel()
	quoted, err := json.Marshal(url.QueryEscape(html.EscapeString(benchKey)))
	if err != nil {
		t.Fatal(err)
	}
	r := newRedactor(benchKey)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		nested := enc.EncodeToString(quoted)
		for _, glue := range []string{"t", "to", "tok", "token_", "/v1/keys/"} {
			text := "bad " + glue + nested + " here"
			unglued := func(s string) string { return strings.Replace(s, glue, glue+" ", 1) }
			if !r.holds(unglued(text), maxRounds) {
				t.Fatalf("glue %q: the unglued text must hold the key", glue)
			}
			if got := r.string(text); r.holds(unglued(got), maxRounds) {
				t.Errorf("glue %q: %q kept the key, base64 of an escaped key", glue, got)
			}
		}
	}

	body, _ := json.Marshal(map[string]string{"error": "invalid token_" + base64.StdEncoding.EncodeToString(quoted)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, benchKey, WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Workspaces.List(context.Background(), nil)
	if err == nil {
		t.Fatal("want an error")
	}
	if msg := strings.Replace(err.Error(), "token_", "token_ ", 1); r.holds(msg, maxRounds) {
		t.Errorf("the error holds the key, base64 of its escaped form: %v", err)
	}
}
