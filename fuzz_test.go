package seoapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"
	"unicode/utf8"
)

// The fuzz targets feed what a server controls to the code that reads it.
// None may panic, hang or allocate out of proportion to its input. CI runs
// each for a few seconds: go test -run '^$' -fuzz '^FuzzDecodeList$' -fuzztime 5s .

func FuzzDecodeList(f *testing.F) {
	for _, seed := range []string{
		`[]`, `[{"id":1,"name":"a","createdAt":"2025-01-01T00:00:00Z"}]`, `{"data":[{"id":"x"}],"meta":{"page":1,"total_pages":3}}`,
		`{"projects":[null,{"workspace_id":12345678901234567}]}`, `{"items":[],"next_cursor":"c","has_more":true}`,
		`{"links":{"next":"/api/x?page=2"},"results":[{"id":"\u00e9"}]}`, `[[[[[]]]]]`, `{"a":[1],"b":[2]}`, `{"id":`, `"x"`, `null`, ``,
		`{"a":[1],"b":[2],"c":[3],"d":[4],"e":[5],"data":[{"id":"x"}]}`, `{"w":[1}],"items":[{"id":2}]}`, `{"data":[{"id":1}],"x":["\q"]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var projects []*Project
		resp := &Response{Response: &http.Response{}}
		err := decodeBody(context.Background(), body, &projects, resp, testMaxItems)
		checkValidation(t, body, err)
		if err != nil {
			return
		}
		if len(projects) > len(body) {
			t.Fatalf("%d items from %d bytes", len(projects), len(body))
		}
		for _, p := range projects {
			if p == nil || len(p.Raw()) > len(body) {
				t.Fatal("nil item or raw larger than the body")
			}
			// An item's Raw decodes to the item again.
			var again Project
			if err := json.Unmarshal(p.Raw(), &again); err != nil || again.ID != p.ID || again.Name != p.Name {
				t.Fatalf("Raw %s decodes to %+v (%v), not %+v", p.Raw(), again, err, *p)
			}
		}
		var keys []*APIKey
		_ = decodeBody(context.Background(), body, &keys, resp, testMaxItems)
		// At a limit of two items, invalid JSON still fails as malformed
		// and valid JSON never does; no more than two items are made.
		var few []*Project
		err = decodeBody(context.Background(), body, &few, resp, 2)
		checkValidation(t, body, err)
		if err == nil && len(few) > 2 {
			t.Fatalf("%d items past a limit of 2", len(few))
		}
	})
}

func FuzzDecodeSingle(f *testing.F) {
	for _, seed := range []string{
		`{"id":"k","key":"sk","lastUsedAt":null,"expires_at":1700000000000}`, `{"data":{"id":7}}`, `{"apiKey":{"id":"x","token":"t"}}`,
		`{"createdAt":1e308,"updatedAt":-1e308,"id":-0.0e-5}`, `{"id":"a\ud800"}`, `{"\u0069d":"x"}`, `{`, `[]`, `0`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var k APIKey
		resp := &Response{Response: &http.Response{}}
		err := decodeBody(context.Background(), body, &k, resp, testMaxItems)
		checkValidation(t, body, err)
		if err != nil {
			return
		}
		if len(k.Raw()) > len(body) {
			t.Fatal("raw larger than the body")
		}
		var p Project
		_ = decodeBody(context.Background(), body, &p, resp, testMaxItems)
	})
}

// checkValidation holds the decoder, which validates while it decodes, to
// encoding/json's judgement: what json.Valid rejects fails as malformed,
// and nothing it accepts does.
func checkValidation(t *testing.T, body []byte, err error) {
	t.Helper()
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return
	}
	if malformed := errors.Is(err, errMalformed); malformed == json.Valid(body) {
		t.Fatalf("json.Valid %v but decoding said %v", json.Valid(body), err)
	}
}

func FuzzErrorBody(f *testing.F) {
	for _, seed := range []string{
		`{"error":"m"}`, `{"error":{"message":"m","code":"c"}}`, `{"message":"m","code":4}`, `{"errors":[{"message":"m"}]}`,
		`{"errors":["m"]}`, `{"detail":"m"}`, "<html><body><h1>502</h1></body></html>", "plain\ntext", "\xff\xfe<", `{"error":[`,
	} {
		f.Add([]byte(seed))
	}
	c, err := NewClient("http://127.0.0.1", "sk_fuzz_key")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		message, _ := parseErrorBody(body)
		if !jsonObject(body) && utf8.RuneCountInString(message) > maxSnippet {
			t.Fatalf("snippet of %d runes", utf8.RuneCountInString(message))
		}
		red, clean := c.redact.withSecretsIn(body) // as read does for a secret's endpoint
		resp := &http.Response{StatusCode: 500, Header: http.Header{}, Body: &answer{data: body, redact: red, withhold: !clean}}
		cl := &call{client: c, ep: &createAPIKey, req: &http.Request{Method: "POST", URL: c.BaseURL()}}
		e := cl.statusError(resp).(*APIError)
		if len(e.Body) > maxErrorBody {
			t.Fatal("body not capped")
		}
		_ = e.Error()
	})
}

func jsonObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

func FuzzRateHeaders(f *testing.F) {
	for _, seed := range [][4]string{
		{"10000", "9999", "3600", "7"}, {"50;w=1", "0", "1700000000", "Wed, 21 Oct 2026 07:28:00 GMT"},
		{"-1", "-5", "-3", "-1"}, {"1e400", "NaN", "Inf", "1e400"}, {"", "", "99999999999999999999", "1.5"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, limit, remaining, reset, after string) {
		for _, prefix := range []string{"X-Ratelimit-", "Ratelimit-"} {
			h := http.Header{}
			h.Set(prefix+"Limit", limit)
			h.Set(prefix+"Remaining", remaining)
			h.Set(prefix+"Reset", reset)
			h.Set("Retry-After", after)
			_ = readRateHeaders(h, now)
			if d, ok := retryAfter(h, now); ok && d < 0 {
				t.Fatalf("negative wait %s", d)
			}
			for _, status := range []int{200, 429} {
				if d, ok := rateFeedback(status, h, now); ok && (d < 0 || d > maxHold) {
					t.Fatalf("status %d: hold %s", status, d)
				}
			}
		}
	})
}

func FuzzLinkHeader(f *testing.F) {
	for _, seed := range []string{
		`<https://a/api/x?page=2>; rel="next", <https://a/api/x?page=9>; rel="last"`,
		`<https://a/api/x?ids=a,b>; title="x, \"y\""; rel="prefetch next"`, `</rel?cursor=c>; rel=next`,
		`<`, `>;;;,,,<`, `<a>; rel="`, `<a>; rel=next; rel=prev`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		req, _ := http.NewRequest(http.MethodGet, "https://api.example.com/seo/api/workspaces", nil)
		r := &Response{Response: &http.Response{Request: req}}
		r.readLink([]string{v})
		if r.NextPage < 0 {
			t.Fatal("negative next page")
		}
		if r.NextURL == "" && (r.NextPage != 0 || r.NextCursor != "") {
			t.Fatal("a page number or cursor without its next link")
		}
	})
}
