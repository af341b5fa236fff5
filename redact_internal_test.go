package seoapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
)

// The redactor's benchmarks: a clean body (the common case, which must
// stay cheap), a body holding the key several times in several encodings,
// and the near miss that made the backtracking matcher exponential (issue
// 17 item 7). Compare runs with benchstat:
//
//	go test -run '^$' -bench '^BenchmarkRedact' -count 10 . > new.txt
//	go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da old.txt new.txt

// benchKey has the characters JSON, URLs and HTML escape.
const benchKey = `sk_live_Ab/+<x>&"Zq/9y`

// cleanBody returns about size bytes of error bodies that hold no form of
// benchKey but the escapes, 's' and near misses a real body holds.
func cleanBody(size int) []byte {
	const chunk = `{"error":"validation_failed","message":"The field \"name\" is invalid: ` +
		`see https://docs.example.com/errors?code=4%20x&amp;lang=en \u00e9t\u00e9 \/ tasks skipped",` +
		`"details":[{"field":"name","issue":"must be at most 64 characters"}],"request_id":"req_8f3a9c2e"}` + "\n"
	return bytes.Repeat([]byte(chunk), size/len(chunk)+1)[:size]
}

// dirtyBody is cleanBody with the key in eight encodings spread through it.
func dirtyBody(size int) []byte {
	js, _ := json.Marshal(benchKey)
	each := func(format string) string {
		var b strings.Builder
		for _, r := range benchKey {
			fmt.Fprintf(&b, format, r)
		}
		return b.String()
	}
	forms := []string{
		benchKey, string(js[1 : len(js)-1]), each(`\u%04x`), each("%%%02X"),
		url.QueryEscape(benchKey), html.EscapeString(benchKey), each("&#%d;"), each("&#x%x;"),
	}
	body := cleanBody(size)
	var out []byte
	step := len(body) / len(forms)
	for i, f := range forms {
		out = append(out, body[i*step:(i+1)*step]...)
		out = append(out, f...)
	}
	return out
}

// backslashCase is a key with a run of n backslashes and an error body
// echoing it JSON-escaped (each '\' written "\\"), its last character
// wrong: every backslash of the body may be a literal one or half an
// escape, which is what made the backtracking matcher exponential.
func backslashCase(n int) (key string, body []byte) {
	key = "sk_" + strings.Repeat(`\`, n) + "z"
	body = []byte(`{"error":"invalid key sk_` + strings.Repeat(`\\`, n) + `y"}`)
	return key, body
}

func BenchmarkRedact(b *testing.B) {
	run := func(name, key string, body []byte) {
		b.Run(name, func(b *testing.B) {
			r := redactor{secret: key}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				r.bytes(body)
			}
		})
	}
	run("clean-64KiB", benchKey, cleanBody(64<<10))
	run("dirty-64KiB", benchKey, dirtyBody(64<<10))
	for _, n := range []int{20, 40, 1000} {
		key, body := backslashCase(n)
		run(fmt.Sprintf("backslash-%d", n), key, body)
	}
}

// BenchmarkRedactString is the header path: short values, almost all clean.
func BenchmarkRedactString(b *testing.B) {
	r := redactor{secret: benchKey}
	values := []string{"application/json", "req_8f3a9c2e", "max-age=0, no-cache", "Bearer sk_live_Ab%2F%2B%3Cx%3E%26%22Zq%2F9y", `a\b&c%d`}
	b.ReportAllocs()
	for b.Loop() {
		for _, v := range values {
			r.string(v)
		}
	}
}
