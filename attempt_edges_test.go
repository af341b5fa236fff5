package seoapi_test

// Regression tests from a review of the call path: the retry loop's edge
// cases, and four defects it found (a key in a trailer, a write whose
// decoding the context cut, a created secret in a withheld body's error, the
// status of a refused redirect in observer events).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/require"
)

// cancelAtAttemptEnd ends the caller's context once the attempt is over:
// the server has answered (and, for a POST, done the write), the body is read,
// and decoding has not started yet.
type cancelAtAttemptEnd struct{ cancel context.CancelFunc }

func (o cancelAtAttemptEnd) Observe(ctx context.Context, e seoapi.Event) context.Context {
	if e.Type == seoapi.EventAttemptEnd {
		o.cancel()
	}
	return ctx
}

// TestWriteWhoseDecodingTheContextCutIsOutcomeUnknown: a POST the server
// answered 201 (the write took effect) whose decoding the caller's context
// cut short matches the context's error and ErrOutcomeUnknown, so that the
// caller does not repeat the create.
func TestWriteWhoseDecodingTheContextCutIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"id":"p_1","name":"n"`)
	for i := range 3000 {
		fmt.Fprintf(&b, `,"f%d":1`, i)
	}
	b.WriteString(`}`)
	rec := newRecorder(t, respond(http.StatusCreated, b.String()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(cancelAtAttemptEnd{cancel}))
	p, resp, err := c.Projects.Create(ctx, "ws_1", &seoapi.ProjectCreateRequest{Name: "n"})
	require.Nil(t, p)
	require.Len(t, rec.requests(), 1)
	require.NotNil(t, resp)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.ErrorIs(t, err, context.Canceled)
	require.True(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "a create that took effect, cut by its context, must match ErrOutcomeUnknown: %v", err)
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

type cancelOnRetry struct{ cancel context.CancelFunc }

func (o cancelOnRetry) Observe(ctx context.Context, e seoapi.Event) context.Context {
	if e.Type == seoapi.EventAttemptEnd && e.Retry {
		o.cancel()
	}
	return ctx
}

type refuseLimiter struct{}

func (refuseLimiter) Wait(ctx context.Context) error {
	return seoapi.RefuseWait(2*time.Minute, "test limit")
}

// TestRetryLoopEdges: how a call ends at each edge of go-retryablehttp's
// loop: one kind, ErrOutcomeUnknown only for a write that may have left,
// the status, the attempts counted, and whether a Response is handed out.
func TestRetryLoopEdges(t *testing.T) {
	t.Parallel()
	type result struct {
		kinds          []error
		outcomeUnknown bool
		status         int
		attempts       int
		nilResp        bool
	}
	tests := []struct {
		name string
		run  func(t *testing.T) (*seoapi.Response, error)
		want result
	}{
		{"context ends in backoff", func(t *testing.T) (*seoapi.Response, error) {
			rec := newRecorder(t, respond(503, `{}`))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := newClient(t, rec.srv.URL, seoapi.WithObserver(cancelOnRetry{cancel}), seoapi.WithRetryWait(time.Second, time.Second))
			_, resp, err := c.Projects.List(ctx, "ws", nil)
			return resp, err
		}, result{kinds: []error{context.Canceled}, attempts: 1, nilResp: true}},
		{"retries exhausted", func(t *testing.T) (*seoapi.Response, error) {
			rec := newRecorder(t, respond(503, `{}`))
			c := newClient(t, rec.srv.URL)
			_, resp, err := c.Projects.List(context.Background(), "ws", nil)
			return resp, err
		}, result{kinds: []error{seoapi.ErrServer}, status: 503, attempts: 4}},
		{"redirect refused by the caller", func(t *testing.T) (*seoapi.Response, error) {
			var rec *recorder
			rec = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/projects") {
					http.Redirect(w, r, rec.srv.URL+"/api/workspaces/ws/projects2", http.StatusFound)
					return
				}
				respond(200, `[]`)(w, r)
			})
			hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("no") }}
			c := newClient(t, rec.srv.URL, seoapi.WithHTTPClient(hc))
			_, resp, err := c.Projects.List(context.Background(), "ws", nil)
			return resp, err
		}, result{kinds: []error{seoapi.ErrUnexpectedResponse}, attempts: 1, nilResp: true}},
		{"hop timeout, GET", func(t *testing.T) (*seoapi.Response, error) {
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(100 * time.Millisecond)
				respond(200, `[]`)(w, r)
			})
			c := newClient(t, rec.srv.URL, seoapi.WithHTTPClient(&http.Client{Timeout: 20 * time.Millisecond}), seoapi.WithMaxRetries(1))
			_, resp, err := c.Projects.List(context.Background(), "ws", nil)
			return resp, err
		}, result{kinds: []error{seoapi.ErrConnection}, attempts: 2, nilResp: true}},
		{"hop timeout, POST", func(t *testing.T) (*seoapi.Response, error) {
			// The server holds the request until the client gives up; the
			// timeout leaves a loaded machine time to send it first.
			rec := newRecorder(t, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
			c := newClient(t, rec.srv.URL, seoapi.WithHTTPClient(&http.Client{Timeout: 500 * time.Millisecond}))
			_, resp, err := c.Projects.Create(context.Background(), "ws", &seoapi.ProjectCreateRequest{Name: "x"})
			return resp, err
		}, result{kinds: []error{seoapi.ErrConnection}, outcomeUnknown: true, attempts: 1, nilResp: true}},
		{"caller RoundTripper sent POST then failed", func(t *testing.T) (*seoapi.Response, error) {
			rt := rtFunc(func(r *http.Request) (*http.Response, error) {
				io.ReadAll(r.Body)
				return nil, errors.New("boom")
			})
			c := newClient(t, "https://api.example.com", seoapi.WithHTTPClient(&http.Client{Transport: rt}))
			_, resp, err := c.Projects.Create(context.Background(), "ws", &seoapi.ProjectCreateRequest{Name: "x"})
			return resp, err
		}, result{kinds: []error{seoapi.ErrConnection}, outcomeUnknown: true, attempts: 1, nilResp: true}},
		{"limiter refuses", func(t *testing.T) (*seoapi.Response, error) {
			c, err := seoapi.NewClient("https://api.example.com", testKey, seoapi.WithLimiter(waitFunc(refuseLimiter{}.Wait)))
			require.NoError(t, err)
			_, resp, err := c.Projects.List(context.Background(), "ws", nil)
			return resp, err
		}, result{kinds: []error{seoapi.ErrRateLimited}, attempts: 0, nilResp: true}},
		{"503 POST with a long Retry-After", func(t *testing.T) (*seoapi.Response, error) {
			rec := newRecorder(t, respond(503, `{}`, "Retry-After", "120"))
			c := newClient(t, rec.srv.URL)
			_, resp, err := c.Projects.Create(context.Background(), "ws", &seoapi.ProjectCreateRequest{Name: "x"})
			return resp, err
		}, result{kinds: []error{seoapi.ErrServer}, outcomeUnknown: true, status: 503, attempts: 1}},
		{"503 GET with a long Retry-After", func(t *testing.T) (*seoapi.Response, error) {
			rec := newRecorder(t, respond(503, `{}`, "Retry-After", "120"))
			c := newClient(t, rec.srv.URL)
			_, resp, err := c.Projects.List(context.Background(), "ws", nil)
			return resp, err
		}, result{kinds: []error{seoapi.ErrServer}, status: 503, attempts: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := tt.run(t)
			require.Error(t, err)
			var e *seoapi.APIError
			require.True(t, errors.As(err, &e), "not an *APIError: %T %v", err, err)
			got := result{kinds: kindsOf(err), outcomeUnknown: errors.Is(err, seoapi.ErrOutcomeUnknown), status: e.StatusCode, attempts: e.Attempts, nilResp: resp == nil}
			require.Equal(t, tt.want, got, "%v", err)
			if e.StatusCode == 503 && strings.Contains(tt.name, "Retry-After") {
				require.Equal(t, 120*time.Second, e.RetryAfter)
			}
		})
	}
}

// TestRefusedRedirectAttemptKeepsItsStatus: a redirect the caller's
// CheckRedirect refuses was answered (302), and EventAttemptEnd says so;
// StatusCode 0 means there was no response.
func TestRefusedRedirectAttemptKeepsItsStatus(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/projects") {
			http.Redirect(w, r, "/api/workspaces/ws/projects2", http.StatusFound)
			return
		}
		respond(200, `[]`)(w, r)
	})
	log := &eventLog{}
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("no") }}
	c := newClient(t, rec.srv.URL, seoapi.WithHTTPClient(hc), seoapi.WithObserver(log))
	_, _, err := c.Projects.List(context.Background(), "ws", nil)
	require.ErrorIs(t, err, seoapi.ErrUnexpectedResponse)
	var end *seoapi.Event
	for _, e := range log.all() {
		if e.Type == seoapi.EventAttemptEnd {
			end = &e
		}
	}
	require.NotNil(t, end)
	require.Equal(t, http.StatusFound, end.StatusCode)
}

type refuseSecond struct{ n atomic.Int32 }

func (l *refuseSecond) Wait(ctx context.Context) error {
	if l.n.Add(1) >= 2 {
		return seoapi.RefuseWait(2*time.Minute, "test limit")
	}
	return nil
}

// TestRefusalAfterAnAttempt: a limiter that refuses the retry's wait ends
// the call with the last answer the server gave (its status, kind and
// Response), with RetryAfter the wait refused, counting only the attempt
// that was sent.
func TestRefusalAfterAnAttempt(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(503, `{"error":"down"}`))
	log := &eventLog{}
	c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(waitFunc((&refuseSecond{}).Wait)), seoapi.WithRetryWait(time.Millisecond, time.Millisecond), seoapi.WithObserver(log))
	require.NoError(t, err)
	_, resp, err := c.Projects.List(context.Background(), "ws", nil)
	require.NotNil(t, resp)
	require.Equal(t, 503, resp.StatusCode)
	var e *seoapi.APIError
	require.True(t, errors.As(err, &e))
	require.Equal(t, []error{seoapi.ErrServer}, kindsOf(err))
	require.Equal(t, 503, e.StatusCode)
	require.Equal(t, "down", e.Message)
	require.Equal(t, 1, e.Attempts)
	require.Equal(t, 2*time.Minute, e.RetryAfter)
	require.Equal(t, []string{"call_start", "attempt_start", "attempt_end", "attempt_start", "attempt_end", "call_end"}, log.types())
	ev := log.all()
	require.Equal(t, 2, ev[3].Attempt)
	require.Equal(t, "rate_limited", ev[4].ErrorType)
	require.Equal(t, 1, ev[5].Attempt)
}

// TestCreatedSecretNeverInAnyError: a created secret echoed in the body,
// the headers and the request ID of a failed APIKeys.Create reaches no part
// of the error, nor of the Response handed out beside it, also when the
// body is a 2xx the SDK cannot read and is withheld.
func TestCreatedSecretNeverInAnyError(t *testing.T) {
	t.Parallel()
	const secret = "sk_new_SECRET0123456789"
	for _, status := range []int{400, 500, 201} {
		body := `{"error":{"message":"created ` + secret + ` but failed","code":"` + secret + `"},"key":"` + secret + `"}`
		if status == 201 {
			body = `{"key":"` + secret + `", "id": [` // malformed
		}
		rec := newRecorder(t, respond(status, body, "X-Key", secret, "X-Request-Id", secret))
		c := newClient(t, rec.srv.URL)
		_, resp, err := c.APIKeys.Create(context.Background(), "ws", &seoapi.APIKeyCreateRequest{Name: "n"})
		require.Error(t, err)
		var e *seoapi.APIError
		require.True(t, errors.As(err, &e))
		j, _ := json.Marshal(e)
		for what, s := range map[string]string{"Error": err.Error(), "fmt": fmt.Sprintf("%+v %#v", err, e), "json": string(j), "Body": string(e.Body), "Message": e.Message, "Code": e.Code, "RequestID": e.RequestID, "Header": fmt.Sprint(e.Header)} {
			if strings.Contains(s, secret) {
				t.Errorf("%d: %s holds the created secret: %.200s", status, what, s)
			}
		}
		require.NotNil(t, resp)
		for what, s := range map[string]string{"Response": fmt.Sprintf("%+v", resp), "Response JSON": mustJSON(t, resp),
			"Response.Header": fmt.Sprint(resp.Header), "Response.RequestID": resp.RequestID} {
			if strings.Contains(s, secret) {
				t.Errorf("%d: %s holds the created secret: %.200s", status, what, s)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestKeyEchoedInTrailer: a key a server echoes in a trailer is gone from
// the Response, whose trailer values arrive with the body's end.
func TestKeyEchoedInTrailer(t *testing.T) {
	t.Parallel()
	for _, status := range []int{200, 404} {
		rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Trailer", "X-Echo")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, `[]`)
			w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		})
		c := newClient(t, rec.srv.URL)
		req, err := c.NewRequest(context.Background(), http.MethodGet, "api/workspaces", nil)
		require.NoError(t, err)
		resp, err := c.Do(req, nil)
		require.NotNil(t, resp)
		for k, vs := range resp.Trailer {
			for _, v := range vs {
				require.NotContains(t, v, testKey, "status %d: trailer %s holds the key", status, k)
			}
		}
		if e := (*seoapi.APIError)(nil); err != nil && errorsAs(err, &e) {
			require.False(t, strings.Contains(e.Error(), testKey))
		}
	}
}

func errorsAs(err error, target **seoapi.APIError) bool {
	e, ok := err.(*seoapi.APIError)
	if ok {
		*target = e
	}
	return ok
}

// TestGetBodyFailsBeforeSending: Do reads the request body once, before
// the first attempt, so a body that cannot be read fails with
// ErrInvalidArgument and nothing is sent.
func TestGetBodyFailsBeforeSending(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(201, `{"id":"w"}`))
	c := newClient(t, rec.srv.URL)
	req, err := c.NewRequest(context.Background(), http.MethodPost, "api/workspaces", map[string]string{"name": "x"})
	require.NoError(t, err)
	req.GetBody = func() (io.ReadCloser, error) { return nil, errors.New("no rewind") }
	resp, err := c.Do(req, nil)
	require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
	require.Nil(t, resp)
	require.Empty(t, rec.requests())
}

// closeCounter is a transport that counts the calls to its
// CloseIdleConnections.
type closeCounter struct {
	http.RoundTripper
	closes atomic.Int32
}

func (t *closeCounter) CloseIdleConnections() { t.closes.Add(1) }

// TestFailedCallKeepsThePool: go-retryablehttp closes its HTTP client's
// idle connections when a call fails; the SDK's transport takes no part in
// that, so a failed call leaves the pool to the calls after it. Only
// Client.CloseIdleConnections closes them.
func TestFailedCallKeepsThePool(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(503, `{}`))
	rt := &closeCounter{RoundTripper: http.DefaultTransport}
	c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(1), seoapi.WithHTTPClient(&http.Client{Transport: rt}))
	_, _, err := c.Workspaces.List(context.Background(), nil)
	requireOneKind(t, err, seoapi.ErrServer)
	c = newClient(t, closedURL(t), seoapi.WithMaxRetries(1), seoapi.WithHTTPClient(&http.Client{Transport: rt}))
	_, _, err = c.Workspaces.List(context.Background(), nil)
	requireOneKind(t, err, seoapi.ErrConnection)
	require.Zero(t, rt.closes.Load(), "a failed call closed the idle connections")
	c.CloseIdleConnections()
	require.EqualValues(t, 1, rt.closes.Load())
}
