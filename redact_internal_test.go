package seoapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The redactor's benchmarks: a clean error body and one holding the key in
// several forms, and the headers of an ordinary response, which every call
// passes through answer() and which must cost no allocation. Compare runs
// with benchstat:
//
//	go test -run '^$' -bench '^BenchmarkRedact' -count 10 . > new.txt
//	go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da old.txt new.txt

// benchKey has the characters JSON and URLs escape.
const benchKey = `sk_live_Ab/+<x>&Zq/9y`

// cleanBody returns about size bytes of error bodies that hold no form of
// benchKey but the escapes and near misses a real body holds.
func cleanBody(size int) []byte {
	const chunk = `{"error":"validation_failed","message":"The field \"name\" is invalid: ` +
		`see https://docs.example.com/errors?code=4%20x&amp;lang=en \u00e9t\u00e9 \/ tasks skipped",` +
		`"details":[{"field":"name","issue":"must be at most 64 characters"}],"request_id":"req_8f3a9c2e"}` + "\n"
	return bytes.Repeat([]byte(chunk), size/len(chunk)+1)[:size]
}

// hostileBody returns size bytes of nested escapes of each kind, two
// layers deep and more, and HTML references.
func hostileBody(size int) []byte {
	const unit = `%2525\\\\&amp;amp;`
	return bytes.Repeat([]byte(unit), size/len(unit)+1)[:size]
}

// escapeLayers are the ways a server escapes a text once, each named.
func escapeLayers() map[string]func(string) string {
	eachByte := func(s, format string) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, format, c)
		}
		return b.String()
	}
	goJSON := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}
	return map[string]func(string) string{
		"JSON":                 goJSON,
		`JSON with \/`:         func(s string) string { return strings.ReplaceAll(goJSON(s), "/", `\/`) },
		`JSON \u each`:         func(s string) string { return jsonEach(s, `\u%04x`) },
		`JSON \u each, HEX`:    func(s string) string { return jsonEach(s, `\u%04X`) },
		"percent, query":       url.QueryEscape,
		"percent, each byte":   func(s string) string { return eachByte(s, "%%%02X") },
		"percent, lower-cased": func(s string) string { return eachByte(s, "%%%02x") },
	}
}

// jsonEach writes each UTF-16 code unit of s as a JSON escape, as JSON
// writes a character past U+FFFF.
func jsonEach(s, format string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, format, u)
	}
	return b.String()
}

// asciiUpper upper-cases s's ASCII letters only.
func asciiUpper(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}, s)
}

// mixedCase upper-cases every other ASCII letter of s.
func mixedCase(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i += 2 {
		if 'a' <= b[i] && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		}
	}
	return string(b)
}

// keyForms returns key in each form docs/security.md lists, each named:
// as sent in three letter cases, behind one or two layers of escapes of
// any kind, and in base64 of the key, of "Bearer <key>" and "user:<key>",
// after 0 to 2 other bytes, in both alphabets, padded or not, also behind
// a layer of escapes.
// jsonEscapeFirst is s as a JSON string's contents, its first character
// as a \u escape (a surrogate pair beyond the Basic Multilingual Plane).
func jsonEscapeFirst(s string) string {
	first, size := utf8.DecodeRuneInString(s)
	esc := fmt.Sprintf(`\u%04X`, first)
	if r1, r2 := utf16.EncodeRune(first); r1 != utf8.RuneError {
		esc = fmt.Sprintf(`\u%04X\u%04X`, r1, r2)
	}
	var rest bytes.Buffer
	enc := json.NewEncoder(&rest)
	enc.SetEscapeHTML(false)
	enc.Encode(s[size:]) //nolint:errcheck // a string always encodes
	return esc + strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(rest.String()), `"`), `"`)
}

func keyForms(key string) map[string]string {
	forms := map[string]string{
		"as sent":                  key,
		"ASCII upper-cased":        asciiUpper(key),
		"ASCII case mixed":         mixedCase(key),
		"percent of upper-cased":   url.QueryEscape(asciiUpper(key)),
		`JSON \u of upper-cased`:   jsonEscapeFirst(asciiUpper(key)),
		"JSON with \\/, then text": strings.ReplaceAll(key, "/", `\/`) + "_x",
	}
	layers := escapeLayers()
	for outer, escape := range layers {
		forms[outer] = escape(key)
		for inner, first := range layers {
			forms[inner+", then "+outer] = escape(first(key))
		}
	}
	encodings := map[string]*base64.Encoding{
		"std": base64.StdEncoding, "std unpadded": base64.RawStdEncoding,
		"URL": base64.URLEncoding, "URL unpadded": base64.RawURLEncoding,
	}
	for _, prefix := range []string{"", "Bearer ", "user:", "\xff", "\xfe\x00", "\x01\x80\xc0\xff"} {
		for name, enc := range encodings {
			b64 := enc.EncodeToString([]byte(prefix + key))
			forms[fmt.Sprintf("base64 %s of %q+key", name, prefix)] = b64
			forms[fmt.Sprintf("base64 %s of %q+key, key after", name, prefix)] = enc.EncodeToString([]byte(prefix + key + "\x00tail"))
			forms[fmt.Sprintf("base64 %s of %q+key, JSON with \\/", name, prefix)] = strings.ReplaceAll(b64, "/", `\/`)
			forms[fmt.Sprintf("base64 %s of %q+key, percent", name, prefix)] = url.QueryEscape(b64)
		}
	}
	forms["form-encoded Basic"] = url.Values{"Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("user:"+key))}}.Encode()
	return forms
}

// formKeys are keys each form is tried with: the characters escapes
// start with, letters outside ASCII and past U+FFFF, the shortest and a
// long key.
var formKeys = []string{benchKey, `sk_100%_sure`, `sk\back\slash`, `sk_ünï_cødé`, "sk_😀_emoji", "sk_12345", "sk_live_" + strings.Repeat("Zq9", 20)}

// TestRedactorEveryDocumentedForm: each documented form of a key is found and
// withheld as a unit, in a message and in a JSON body (which stays JSON),
// and the rest of the text is kept.
func TestRedactorEveryDocumentedForm(t *testing.T) {
	t.Parallel()
	for i, key := range formKeys {
		r := newRedactor(key)
		for name, form := range keyForms(key) {
			t.Run(fmt.Sprintf("key %d/%s", i, name), func(t *testing.T) {
				t.Parallel()
				require.True(t, r.holds(form, maxRounds), "%q not found", form)
				assert.Equal(t, "before "+redacted+" after", r.string("before "+form+" after"))
				body := `{"error":"bad key ` + form + `","code":401}`
				assert.Equal(t, `{"error":"[REDACTED]","code":401}`, r.string(body))
			})
		}
	}
}

// TestRedactorKeepsWhatIsNotAForm: a key with one bit changed in any
// form, and the forms docs/security.md leaves out, are kept as they are.
func TestRedactorKeepsWhatIsNotAForm(t *testing.T) {
	t.Parallel()
	const key = "sk_live_Abi9xyz/w"
	r := newRedactor(key)
	miss := []byte(key)
	miss[5] ^= 1
	texts := map[string]string{
		"HTML references":            htmlReferences(key),
		"a Unicode case fold (ſ)":    strings.ReplaceAll(key, "s", "ſ"),
		"a Unicode case fold (K)":    strings.ReplaceAll(key, "k", "\u212a"),
		"three layers of percent":    url.QueryEscape(url.QueryEscape(url.QueryEscape(key))),
		"base64 of the upper-cased":  base64.StdEncoding.EncodeToString([]byte(strings.ToUpper(key))),
		"base64 of the JSON-escaped": base64.StdEncoding.EncodeToString([]byte(escapeLayers()[`JSON \u each`](key))),
		"base64 wrapped in two":      base64.StdEncoding.EncodeToString([]byte(key))[:8] + "\n" + base64.StdEncoding.EncodeToString([]byte(key))[8:],
	}
	for name, form := range keyForms(string(miss)) {
		texts["one bit changed, "+name] = form
	}
	for name, text := range texts {
		assert.False(t, r.holds(text, maxRounds), "%s: %q", name, text)
		assert.Equal(t, text, r.string(text), name)
	}
}

// htmlReferences writes each character of s as an HTML decimal reference.
func htmlReferences(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "&#%d;", r)
	}
	return b.String()
}

// TestRedactorUnits holds what string() withholds: each JSON string or
// word holding a form, whole, and a word with quotes in it when a secret
// holds one.
func TestRedactorUnits(t *testing.T) {
	t.Parallel()
	const key = "sk_live_Ab/+9y"
	b64 := base64.StdEncoding.EncodeToString([]byte("user:" + key))
	for _, tc := range []struct {
		name, text, want string
	}{
		{"a word", "a sk_live_Ab/+9y b", "a [REDACTED] b"},
		{"a word around it", "INVALID KEY (SK_LIVE_AB/+9Y).", "INVALID KEY [REDACTED]"},
		{"two and a repeat", key + " \t\n" + key + key, "[REDACTED] \t\n[REDACTED]"},
		{"a URL", "GET /k?key=sk_live_Ab%2F%2B9y&x=1: 401", "GET [REDACTED] 401"},
		{"a JSON string", `{"error":"bad key sk_live_Ab\/+9y","code":401}`, `{"error":"[REDACTED]","code":401}`},
		{"a JSON string escaped twice", `{"upstream":"{\"error\":\"bad key sk_live_Ab\\\/+9y\"}"}`, `{"upstream":"[REDACTED]"}`},
		{"a JSON string not closed", `{"error":"bad key sk_live_Ab\/+9y`, `{"error":"[REDACTED]"`},
		{"percents written \\u0025", `{"url":"/k?key=sk_live_Ab\u00252F\u00252B9y"}`, `{"url":"[REDACTED]"}`},
		{"base64 Basic credentials", "echo: Authorization: Basic " + b64, "echo: Authorization: Basic [REDACTED]"},
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
	t.Run("a secret holding a quote", func(t *testing.T) {
		t.Parallel()
		r := newRedactor(`sk_live_"quoted"_1`)
		assert.Equal(t, "bad key [REDACTED] here", r.string(`bad key sk_live_"quoted"_1 here`))
		assert.Equal(t, `{"error":"[REDACTED]"}`, r.string(`{"error":"bad key sk_live_\"quoted\"_1"}`))
	})
	t.Run("an empty key redacts nothing", func(t *testing.T) {
		t.Parallel()
		assert.Equal(t, "anything %41 \\u0041", newRedactor("").string("anything %41 \\u0041"))
	})
}

// TestRedactorHeader holds answer() on a header: each name and value
// holding a form cleaned as a text, and the header passed in left as it
// was.
func TestRedactorHeader(t *testing.T) {
	t.Parallel()
	r := newRedactor(benchKey)
	forms := keyForms(benchKey)
	h := http.Header{
		"X-Echo":               {"Bearer " + benchKey},
		"X-Echo-Upper":         {"Bearer " + strings.ToUpper(benchKey)},
		"X-Echo-Authorization": {"Basic " + forms[`base64 std of "user:"+key`]},
		"Www-Authenticate":     {`Bearer error_description="key ` + forms["JSON, then JSON"] + `"`},
		"Location":             {"/api/echo?k=" + forms["percent, query, then percent, query"]},
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
		"Location":             {"[REDACTED]"},
		"[REDACTED]":           {"v"},
		"X-Clean":              {"ok", "a%2Fb"},
	}, got)
	assert.Equal(t, before, h, "the header passed in is not changed")
	assert.Nil(t, cleanHeader(r, nil))
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

func BenchmarkRedact(b *testing.B) {
	dirty := cleanBody(64 << 10)
	for _, form := range keyForms(benchKey) {
		dirty = append(dirty, " "+form+" "...)
	}
	for _, c := range []struct {
		name string
		body []byte
	}{{"clean-64KiB", cleanBody(64 << 10)}, {"dirty-64KiB", dirty}, {"hostile-64KiB", hostileBody(64 << 10)}} {
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

// TestRedactorCostIsLinear: a body of nested escapes costs about what a
// plain body of its size costs, and four times the body about four times
// the time; a redactor decoding in rounds spent over a thousand times the plain
// body's time. Each figure is the fastest of nine interleaved runs, so a
// busy machine slows both sides of a ratio alike.
func TestRedactorCostIsLinear(t *testing.T) {
	r := newRedactor(benchKey)
	plain := []byte(strings.Repeat("abcdefgh ", (64<<10)/9))
	small, large := hostileBody(64<<10), hostileBody(256<<10)
	fastest := make([]time.Duration, 3)
	for i := range fastest {
		fastest[i] = time.Hour
	}
	for range 9 {
		for i, body := range [][]byte{plain, small, large} {
			start := time.Now()
			r.errorBody(body)
			fastest[i] = min(fastest[i], time.Since(start))
		}
	}
	t.Logf("plain 64 KiB %s, escapes 64 KiB %s, escapes 256 KiB %s", fastest[0], fastest[1], fastest[2])
	assert.Less(t, fastest[1], 100*fastest[0], "escapes against a plain body of the same size")
	assert.Less(t, fastest[2], 12*fastest[1], "four times the escapes: linear is 4x, quadratic 16x")
}

// TestRedactorHeldBehindPointer: the structs of a Client that hold its
// redactor, and the redactor itself, print with every verb addresses
// rather than the key, even through an unexported field fmt reads by
// reflection.
func TestRedactorHeldBehindPointer(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://api.example.com", benchKey)
	require.NoError(t, err)
	for _, v := range []any{
		struct{ client Client }{*c},
		struct{ redact any }{c.redact},
		struct{ redact *redactor }{c.redact},
		c.redact,
		*c.redact,
	} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%t"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, "sk_live", verb)
			assert.NotContains(t, out, fmt.Sprintf(verb, []byte("sk_live")), verb)
		}
	}
}

// TestSecretValues holds which values secretValues finds in an API key
// answer: those of the members named as APIKey's secret, at any depth, in
// order, a duplicate name's values included; which bodies are withheld
// (ok false) and which cannot be read (err).
func TestSecretValues(t *testing.T) {
	t.Parallel()
	var many strings.Builder
	for i := range maxSecretValues + 1 {
		fmt.Fprintf(&many, `{"token":"secret_%02d"},`, i)
	}
	const (
		read       = iota // ok, and err nil
		withheld          // not ok, err nil
		unreadable        // err
	)
	for _, tc := range []struct {
		name string
		body string
		want []string
		is   int
	}{
		{"none", `{"error":"boom","code":"internal"}`, nil, read},
		{"empty body", " ", nil, read},
		{"top level", `{"id":"k1","key":"sk_new_1"}`, []string{"sk_new_1"}, read},
		{"every name", `{"key":"v1","apiKey":"v2","api_key":"v3","API-KEY":"v4","Token":"v5","secret":"v6"}`,
			[]string{"v1", "v2", "v3", "v4", "v5", "v6"}, read},
		{"nested", `{"error":{"detail":{"created":[{"secret":"deep_1"}]}},"data":{"apikey":"deep_2"}}`, []string{"deep_1", "deep_2"}, read},
		{"a duplicate name keeps both values", `{"key":"first_1","key":"second_2"}`, []string{"first_1", "second_2"}, read},
		{"escaped name and value", `{"\u006bey":"sk\/new\u005f\"1\\"}`, []string{`sk/new_"1\`}, read},
		{"other names ignored", `{"keys":"a","tokenId":"b","secretary":"c","name":"key","value":"token"}`, nil, read},
		{"a Unicode case fold is not a name", `{"api` + "\u212a" + `ey":"sk_x_12345"}`, nil, read},
		{"a value named key is not a name", `["key","sk_x"]`, nil, read},
		{"not strings", `{"key":123,"token":null,"secret":{"id":"s1"},"apiKey":["a"],"n":1e999}`, nil, read},
		{"repeats and placeholders", `{"key":"v1","token":"v1","secret":"","apiKey":"[REDACTED]"}`, []string{"v1"}, read},
		{"several values", `{"key":"v1"} ["x"] {"token":"v2"}`, []string{"v1", "v2"}, read},
		{"braces that start no object", `{"error":"field {name} is required, {} given"}`, nil, read},
		{"a secret as deep as encoding/json reads", strings.Repeat("[", 9999) + `{"key":"sk_deep_1"}` + strings.Repeat("]", 9999),
			[]string{"sk_deep_1"}, read},
		{"JSON in a string", `{"error":"upstream said {\"key\":\"sk_emb_1\"}"}`, nil, withheld},
		{"JSON with spaces in a string", `{"error":"upstream said { \n \"key\":\"sk_emb_1\"}"}`, nil, withheld},
		{"JSON in a string, a secret after it", `{"id":"k1","metadata":"{\"scopes\":[\"read\"]}","key":"sk_new_9a8b7c6d5e4f3a2b1c0d"}`,
			[]string{"sk_new_9a8b7c6d5e4f3a2b1c0d"}, withheld},
		{"JSON in a member name", `{"{\"key\":\"sk_emb_1\"}":1}`, nil, withheld},
		{"nested deeper than encoding/json reads", strings.Repeat("[", 10001) + strings.Repeat("]", 10001), nil, unreadable},
		{"cut short", `{"error":"boom","key":"sk_new_12`, nil, unreadable},
		{"cut after a secret", `{"key":"sk_new_SECRET0123456789", "id": [`, []string{"sk_new_SECRET0123456789"}, unreadable},
		{"a bad number before a secret", `{"n":01,"api\u005fkey":"sk_late_1"}`, nil, unreadable},
		{"a byte order mark", "\ufeff" + `{"key":"sk_new_1"}`, nil, unreadable},
		{"a closing bracket after", `{"key":"sk_new_1"}]`, []string{"sk_new_1"}, unreadable},
		{"not JSON", `<html>key: sk_x</html>`, nil, unreadable},
		{"too many", "[" + strings.TrimSuffix(many.String(), ",") + "]", nil, unreadable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok, err := secretValues([]byte(tc.body))
			assert.Equal(t, tc.is == unreadable, err != nil, "err: %v", err)
			if err == nil {
				assert.Equal(t, tc.is == read, ok)
			}
			if tc.is != unreadable || tc.want != nil {
				assert.Equal(t, tc.want, got)
			}
		})
	}
}

// TestWithSecretsInAWithheldBody: a body with a string holding a JSON
// object is withheld, and the secrets it names are still cleaned from
// other text (the headers and request ID may echo them); a body that
// cannot be read takes every text with it but an empty one.
func TestWithSecretsInAWithheldBody(t *testing.T) {
	t.Parallel()
	const secret = "sk_new_SECRET0123456789"
	r, ok := newRedactor("sk_live_key_0001").withSecretsIn([]byte(`{"id":"k1","metadata":"{\"scopes\":[\"read\"]}","key":"` + secret + `"}`))
	assert.False(t, ok)
	assert.Equal(t, "id "+redacted, r.string("id "+secret))
	for _, body := range []string{`{"key":"` + secret + `", "id": [`, "\ufeff" + `{"key":"` + secret + `"}`, `{"n":01,"key":"` + secret + `"}`} {
		r, ok := newRedactor("sk_live_key_0001").withSecretsIn([]byte(body))
		assert.False(t, ok, "withheld: %s", body)
		assert.Equal(t, redacted, r.string("id "+secret), "every text is withheld: %s", body)
		assert.Equal(t, redacted, r.string("201 Created"), "every text is withheld: %s", body)
		assert.Equal(t, "", r.string(""), "but an empty one: %s", body)
		h := cleanHeader(r, http.Header{"X-Echo": {secret}, "X-Other": {"a", "b"}})
		assert.NotContains(t, fmt.Sprint(h), secret)
		assert.NotContains(t, fmt.Sprint(h), "X-Other")
	}
}

// TestWithSecretsIn: an error body holding a created key's secret is
// cleaned of it in every form; one whose secrets cannot be redacted (one
// shorter than MinAPIKeyLength characters or with white space, or a body
// that cannot be read) is to be withheld; the redactor it extends is left
// as it was.
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
		})
	}
}

// FuzzRedactor holds the redactor to its promise on any text: what it
// returns holds no form of the key, a text holding none is returned as it
// is, and the key put into a text in any form of keyForms is found.
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
		values, ok, err := secretValues(body)
		if !ok || err != nil {
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
