package seoapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServerOutageIsAServerError: a 503 whose Retry-After the caller's
// deadline cannot accept is ErrServer, with the wait in RetryAfter, for a
// GET as for a POST: an outage never lands in rate-limit alerts (issue 17
// item 3).
func TestServerOutageIsAServerError(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, sequence(map[string]string{"Retry-After": "3"}, 503))
			c := newClient(t, rec.srv.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err := callMethod(ctx, c, method)
			ae := requireOneKind(t, err, seoapi.ErrServer)
			assert.Equal(t, 503, ae.StatusCode)
			assert.Equal(t, 3*time.Second, ae.RetryAfter)
			assert.Len(t, rec.requests(), 1)
		})
	}
}

// TestEchoedKeyLeavesNoHeaderOfTheResponse: a key a server echoes in a
// response header is gone from the *http.Response the caller gets, not
// only from the SDK's own views (issue 17 item 4).
func TestEchoedKeyLeavesNoHeaderOfTheResponse(t *testing.T) {
	t.Parallel()
	for _, status := range []int{200, 404} {
		rec := newRecorder(t, respond(status, `[]`, "X-Echo-Authorization", "Bearer "+testKey))
		_, resp, err := newClient(t, rec.srv.URL).Workspaces.List(context.Background(), nil)
		if status != 200 {
			require.Error(t, err)
		}
		require.NotNil(t, resp)
		for _, printed := range []string{
			fmt.Sprintf("%v", resp.Header), fmt.Sprintf("%+v", resp.Response), fmt.Sprintf("%#v", resp.Response.Header),
			resp.Header.Get("X-Echo-Authorization"), fmt.Sprintf("%+v", err),
		} {
			assert.NotContains(t, printed, testKey)
		}
		assert.Equal(t, "Bearer [REDACTED]", resp.Header.Get("X-Echo-Authorization"))
	}
}

// cancelingTransport answers every request with body and ends the call's
// context as it hands the answer over: the decoding that follows meets an
// ended context.
type cancelingTransport struct {
	body   string
	cancel context.CancelFunc
}

func (t cancelingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.cancel()
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(t.body)), ContentLength: int64(len(t.body)), Request: req,
	}, nil
}

// TestContextEndedInDecodingIsTheContextsError: a long decoding cut short
// by the caller's context fails with the context's error and no kind, as
// any call whose context ended.
func TestContextEndedInDecodingIsTheContextsError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := "[" + strings.Repeat(`{"id":"p"},`, 5000) + `{"id":"p"}]`
	hc := &http.Client{Transport: cancelingTransport{body: body, cancel: cancel}}
	c, err := seoapi.NewClient("https://api.example.com", testKey, seoapi.WithHTTPClient(hc))
	require.NoError(t, err)
	_, _, err = c.Projects.List(ctx, "ws", nil)
	requireOneKind(t, err, context.Canceled)
}

// TestCreatedSecretNeverInAStatusError: a server that creates a key and then
// fails the call with the secret in its answer puts it in no part of the
// error (issue 17 item 6); other endpoints keep their bodies as they are.
func TestCreatedSecretNeverInAStatusError(t *testing.T) {
	t.Parallel()
	const secret = "sk_live_created_0123456789"
	for _, tc := range []struct {
		name, body string
		header     []string
	}{
		{"member", `{"id":"k1","key":"` + secret + `","error":{"message":"stored, then failed"}}`, nil},
		{"nested", `{"error":{"message":"failed","detail":{"apiKey":"` + secret + `"}},"echo":"` + secret + `"}`, nil},
		{"in the message", `{"token":"` + secret + `","message":"could not send ` + secret + `"}`, nil},
		{"in a header", `{"secret":"` + secret + `"}`, []string{"X-Created", secret}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(500, tc.body, tc.header...))
			_, _, err := newClient(t, rec.srv.URL).APIKeys.Create(context.Background(), "ws", &seoapi.APIKeyCreateRequest{Name: "k"})
			ae := requireOneKind(t, err, seoapi.ErrServer)
			assert.True(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "a 5xx answer to a write says nothing of its effect")
			for _, printed := range []string{
				err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), string(ae.Body), ae.Message, ae.Code,
				fmt.Sprint(ae.Header),
			} {
				assert.NotContains(t, printed, secret)
			}
		})
	}
	rec := newRecorder(t, respond(500, `{"key":"`+secret+`"}`))
	_, _, err := newClient(t, rec.srv.URL).Projects.Create(context.Background(), "ws", &seoapi.ProjectCreateRequest{Name: "p"})
	ae := requireOneKind(t, err, seoapi.ErrServer)
	assert.Contains(t, string(ae.Body), secret, "only an endpoint that creates a secret has its body cleaned")
}
