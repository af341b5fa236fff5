package seoapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorBodyWithBackslashKey: a key with a run of backslashes, and a
// server answering 400 with the key JSON-escaped in its body, exactly or
// with its last character wrong. The body is cleaned of the key, the near
// miss left as it is.
func TestErrorBodyWithBackslashKey(t *testing.T) {
	t.Parallel()
	key := "sk_" + strings.Repeat(`\`, 200) + "z"
	escaped := "sk_" + strings.Repeat(`\\`, 200)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"near miss", `{"error":"invalid key ` + escaped + `y"}`, `{"error":"invalid key ` + escaped + `y"}`},
		{"exact", `{"error":"invalid key ` + escaped + `z","code":"invalid"}`, `{"error":"[REDACTED]","code":"invalid"}`},
		{"exact, \\u005c", `{"error":"` + strings.ReplaceAll(escaped, `\\`, `\u005c`) + `z"}`, `{"error":"[REDACTED]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(http.StatusBadRequest, tc.body))
			c, err := seoapi.NewClient(rec.srv.URL, key, fastOptions()...)
			require.NoError(t, err)
			_, _, err = c.Workspaces.List(context.Background(), nil)
			require.ErrorIs(t, err, seoapi.ErrValidation)
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			assert.Equal(t, tc.want, string(apiErr.Body))
		})
	}
}

// encodedKey is a key with the characters JSON and URLs escape.
const encodedKey = `sk_live_Ab/+<x>&"Zq/9y`

// jsonContent is s as the content of a JSON string, as Go writes it.
func jsonContent(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestEncodedKeyNeverInAnError: a server (or a gateway before it) that
// echoes the key escaped twice, percent-encoded with each '%' written
// \u0025, in base64 or upper-cased, in its body or its headers, gets an
// error whose every output is clean of the key and of what one decoding
// of its form gives.
func TestEncodedKeyNeverInAnError(t *testing.T) {
	t.Parallel()
	once := jsonContent(encodedKey)
	slashes := strings.ReplaceAll(once, "/", `\/`)
	var percents strings.Builder
	for _, c := range []byte(encodedKey) {
		fmt.Fprintf(&percents, `\u0025%02X`, c)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("user:" + encodedKey))
	upstream := `{"error":{"message":"invalid key ` + slashes + `"}}`
	for _, tc := range []struct {
		name   string
		body   string
		header string
	}{
		{"a gateway quoting its upstream's JSON", `{"error":"bad gateway","upstream":"` + jsonContent(upstream) + `"}`, ""},
		{"\\/ escaped twice", `{"error":"invalid key ` + jsonContent(slashes) + `"}`, `error_description="` + jsonContent(slashes) + `"`},
		{"percents written \\u0025", `{"error":"see /keys?k=` + percents.String() + `"}`, ""},
		{"Basic credentials echoed", `{"error":"Authorization: Basic ` + basic + `"}`, "Basic " + basic},
		{"base64 in a message", `{"error":"key ` + base64.RawURLEncoding.EncodeToString([]byte(encodedKey)) + ` refused"}`, ""},
		{"upper-cased", `{"error":"INVALID KEY ` + jsonContent(strings.ToUpper(encodedKey)) + `"}`, "BEARER " + strings.ToUpper(encodedKey)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(http.StatusUnauthorized, tc.body, "X-Echo", tc.header))
			c, err := seoapi.NewClient(rec.srv.URL, encodedKey, fastOptions()...)
			require.NoError(t, err)
			_, _, err = c.Workspaces.List(context.Background(), nil)
			require.ErrorIs(t, err, seoapi.ErrUnauthorized)
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			outputs := []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", *apiErr), string(apiErr.Body), apiErr.Message, fmt.Sprint(apiErr.Header)}
			decodedOnce := []string{encodedKey, once, slashes, strings.ReplaceAll(percents.String(), `\u0025`, "%"),
				url.QueryEscape(encodedKey), basic, base64.RawURLEncoding.EncodeToString([]byte(encodedKey))}
			for _, out := range outputs {
				for _, form := range decodedOnce {
					assert.NotContains(t, strings.ToLower(out), strings.ToLower(form))
				}
			}
			assert.Contains(t, string(apiErr.Body), "[REDACTED]", "the body is shown, redacted")
		})
	}
}

// TestCreatedSecretCleanedWhenBodyWithheld: an API key answer, a success
// or a failure, whose body must be withheld (a string in it holds a JSON
// object) and whose header echoes the created secret named after that
// string: neither the Response nor the error shows the secret, in any
// output.
func TestCreatedSecretCleanedWhenBodyWithheld(t *testing.T) {
	t.Parallel()
	const created = "sk_new_9a8b7c6d5e4f3a2b1c0d"
	body := `{"id":"k1","name":"ci","metadata":"{\"scopes\":[\"read\"]}","key":"` + created + `"}`
	for _, status := range []int{http.StatusCreated, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(status, body, "X-Api-Key", created))
			c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
			_, resp, err := c.APIKeys.Create(context.Background(), "w1", &seoapi.APIKeyCreateRequest{Name: "ci"})
			require.NotNil(t, resp)
			assert.Equal(t, "[REDACTED]", resp.Header.Get("X-Api-Key"))
			if status == http.StatusCreated {
				require.NoError(t, err)
				return
			}
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			assert.Nil(t, apiErr.Body, "withheld")
			asJSON, jerr := json.Marshal(err)
			require.NoError(t, jerr)
			for _, out := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%#v", *apiErr), string(asJSON), fmt.Sprint(apiErr.Header)} {
				assert.NotContains(t, out, created)
			}
		})
	}
}

// TestDeeplyNestedCreateAnswer: a 201 answer to APIKeys.Create nested far
// deeper than encoding/json reads fails with ErrUnexpectedResponse, its
// body withheld, instead of exhausting the stack.
func TestDeeplyNestedCreateAnswer(t *testing.T) {
	t.Parallel()
	const depth = 2 << 20
	rec := newRecorder(t, respond(http.StatusCreated, strings.Repeat("[", depth)+strings.Repeat("]", depth)))
	c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
	key, _, err := c.APIKeys.Create(context.Background(), "w1", &seoapi.APIKeyCreateRequest{Name: "ci"})
	assert.Nil(t, key)
	require.ErrorIs(t, err, seoapi.ErrUnexpectedResponse)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Nil(t, apiErr.Body, "withheld")
}

// TestCreatedSecretInASecondJSONValue: an APIKeys.Create answer of two
// JSON values one after the other (NDJSON, say) names a secret in each;
// the headers, the request ID and the error are cleaned of both.
func TestCreatedSecretInASecondJSONValue(t *testing.T) {
	t.Parallel()
	const first, second = "sk_first_created_0001", "sk_second_created_0002"
	body := `{"id":"k1","key":"` + first + `"}` + "\n" + `{"id":"k2","key":"` + second + `"}`
	for _, status := range []int{http.StatusCreated, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(status, body, "X-Echo", second, "X-Request-Id", first))
			c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
			_, resp, err := c.APIKeys.Create(context.Background(), "w1", &seoapi.APIKeyCreateRequest{Name: "ci"})
			require.NotNil(t, resp)
			require.Error(t, err)
			js, _ := json.Marshal(err)
			for _, out := range []string{fmt.Sprint(resp.Header), resp.RequestID, fmt.Sprintf("%+v", resp),
				err.Error(), fmt.Sprintf("%+v", err), string(js)} {
				assert.NotContains(t, out, first)
				assert.NotContains(t, out, second)
			}
		})
	}
}

// TestHugeCreatedSecret: a created secret of megabytes, within the
// response cap, does not crash the call (the redactor's pattern would
// outgrow regexp's limit); the key is still returned.
func TestHugeCreatedSecret(t *testing.T) {
	t.Parallel()
	secret := "sk_" + strings.Repeat("a", 16<<20)
	rec := newRecorder(t, respond(http.StatusCreated, `{"id":"k1","key":"`+secret+`"}`))
	c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
	key, _, err := c.APIKeys.Create(context.Background(), "w1", &seoapi.APIKeyCreateRequest{Name: "ci"})
	require.NoError(t, err)
	assert.Equal(t, len(secret), len(key.Key))
}

// TestCreatedSecretAfterWhatCannotBeRead: a secret that follows the point
// where an APIKeys.Create answer stops being valid JSON, or the 17th
// secret, is still cleaned from the headers, while the body is withheld.
func TestCreatedSecretAfterWhatCannotBeRead(t *testing.T) {
	t.Parallel()
	const secret = "sk_late_created_0003"
	var many string
	for i := range 16 {
		many += fmt.Sprintf(`{"token":"sk_filler_secret_%02d"},`, i)
	}
	tests := []struct{ name, body string }{
		{"bad number first", `{"n":01,"key":"` + secret + `"}`},
		{"byte order mark", "\ufeff" + `{"key":"` + secret + `"}`},
		{"seventeenth", `[` + many + `{"key":"` + secret + `"}]`},
		{"cut in the value", `{"id":"k1","key":"` + secret},
		{"escaped name", `{"n":01,"api\u005fkey":"` + secret + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(http.StatusCreated, tt.body, "X-Echo", secret))
			c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
			_, resp, err := c.APIKeys.Create(context.Background(), "w1", &seoapi.APIKeyCreateRequest{Name: "ci"})
			require.NotNil(t, resp)
			assert.NotContains(t, fmt.Sprint(resp.Header), secret)
			if err != nil {
				assert.NotContains(t, fmt.Sprintf("%+v", err), secret)
			}
		})
	}
}

// hostileEscapes is a text of nested escapes, each layer of each kind: it
// made a redactor that decoded in rounds work for seconds on megabytes.
func hostileEscapes(size int) string {
	const unit = `%2525\\\\&amp;amp;`
	return strings.Repeat(unit, size/len(unit)+1)[:size]
}

// TestHostileHeaderEndsByTheDeadline: a 2xx list answer with one 3 MiB
// header of nested escapes does not keep a call with a 500 ms context busy
// past its deadline (give or take 100 ms): the redactor's cost is linear
// in what the server sent. It measures time, so it does not run in
// parallel, nor under the race detector, which makes every byte loop tens
// TestHostileHeaderEndsByTheDeadline: a 2xx list answer with one 3 MiB
// header of nested escapes costs a call about what a 3 MiB header of plain
// text costs, and ends by its 500ms context's deadline (a redactor decoding
// in rounds kept the call busy for 6.7-30s and returned no error). It
// compares the two in one run, the fastest of three each, so a busy
// machine slows both.
func TestHostileHeaderEndsByTheDeadline(t *testing.T) {
	t.Parallel()
	call := func(value string) time.Duration {
		rec := newRecorder(t, respond(http.StatusOK, `[]`, "X-Junk", value))
		c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
		fastest := time.Hour
		for range 3 {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			start := time.Now()
			_, _, err := c.Workspaces.List(ctx, nil)
			fastest = min(fastest, time.Since(start))
			cancel()
			if err != nil { // the race detector slows the redactor's loops past the deadline
				require.ErrorIs(t, err, context.DeadlineExceeded)
			}
		}
		return fastest
	}
	plain := call(strings.Repeat("abcdefgh ", (3<<20)/9))
	hostile := call(hostileEscapes(3 << 20))
	t.Logf("3 MiB header: plain %s, nested escapes %s", plain, hostile)
	assert.Less(t, hostile, 15*plain)
}
