package seoapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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

// TestRedactorWorkIsLinear holds the redactor's work (the encodings it
// tries, counted, not timed) within len(body) × (len(key)+1) for keys and
// bodies built to make a matcher backtrack: before issue 17 item 7 the
// backslash near miss took 38 ms at 20 backslashes and did not finish at
// 40. The sizes ascend so that an exponential matcher fails at a small one
// instead of hanging at a large one.
func TestRedactorWorkIsLinear(t *testing.T) {
	t.Parallel()
	type work struct {
		name      string
		key, body string
	}
	var cases []work
	for _, n := range []int{4, 8, 12, 16, 20, 40, 1000} {
		key, body := backslashCase(n)
		cases = append(cases, work{fmt.Sprintf("backslash near miss %d", n), key, string(body)})
	}
	for _, n := range []int{8, 16, 64, 1000} {
		cases = append(cases,
			work{fmt.Sprintf("backslashes only %d", n), strings.Repeat(`\`, n) + "z", strings.Repeat(`\\`, 3*n)},
			work{fmt.Sprintf("percents %d", n), strings.Repeat("%", n) + "z", strings.Repeat("%25", 2*n) + "%"},
			work{fmt.Sprintf("ampersands %d", n), strings.Repeat("&", n) + "z", strings.Repeat("&amp;&", n) + "y"},
			work{fmt.Sprintf("repeated near misses %d", n), "sk_" + strings.Repeat(`\`, 8) + "z",
				strings.Repeat(`sk_`+strings.Repeat(`\\`, 8)+`y `, n)},
		)
	}
	for _, c := range cases {
		r := redactor{secret: c.key}
		out, steps := r.bytesSteps([]byte(c.body))
		bound := len(c.body) * (len(c.key) + 1)
		require.LessOrEqual(t, steps, bound, "%s: %d steps for a %d-byte body and a %d-byte key", c.name, steps, len(c.body), len(c.key))
		if strings.Contains(c.name, "near miss") {
			require.Equal(t, c.body, string(out), c.name)
		}
	}
}
