package seoapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/require"
)

const testKey = "sk_test_0123456789abcdef"

// captured is one request as a test server saw it.
type captured struct {
	Method string
	Path   string // escaped, as sent
	Query  string
	Header http.Header
	Body   string
}

// recorder is an httptest server that records every request and answers
// with the handler the test gives.
type recorder struct {
	mu   sync.Mutex
	reqs []captured
	srv  *httptest.Server
}

func (r *recorder) requests() []captured {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]captured(nil), r.reqs...)
}

// newRecorder starts a server answering with handle after recording.
func newRecorder(t *testing.T, handle http.HandlerFunc) *recorder {
	t.Helper()
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.reqs = append(r.reqs, captured{Method: req.Method, Path: req.URL.EscapedPath(), Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: string(body)})
		r.mu.Unlock()
		handle(w, req)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// respond answers every request with status, the given headers and body.
func respond(status int, body string, headerKV ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headerKV); i += 2 {
			w.Header().Set(headerKV[i], headerKV[i+1])
		}
		if body != "" && w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// fastOptions keep unit tests quick: no client-side limiter, millisecond
// backoff.
func fastOptions(extra ...seoapi.Option) []seoapi.Option {
	return append([]seoapi.Option{seoapi.WithoutRateLimit(), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, extra...)
}

func newClient(t *testing.T, baseURL string, opts ...seoapi.Option) *seoapi.Client {
	t.Helper()
	c, err := seoapi.NewClient(baseURL, testKey, fastOptions(opts...)...)
	require.NoError(t, err)
	return c
}

// newLimitedClient is newClient for a test that gives the client its own
// limiter (WithLimiter), which WithoutRateLimit would contradict.
func newLimitedClient(t *testing.T, baseURL string, lim seoapi.Limiter, opts ...seoapi.Option) *seoapi.Client {
	t.Helper()
	opts = append([]seoapi.Option{seoapi.WithLimiter(lim), seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)
	c, err := seoapi.NewClient(baseURL, testKey, opts...)
	require.NoError(t, err)
	return c
}

// newFake starts the fake API and returns it with a client for a fresh
// enterprise key and that key's workspace.
func newFake(t *testing.T, opts ...seoapi.Option) (*seoapitest.Server, *seoapi.Client, string) {
	t.Helper()
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	key, ws := fake.IssueKey(seoapitest.PlanEnterprise)
	c, err := seoapi.NewClient(srv.URL, key, fastOptions(opts...)...)
	require.NoError(t, err)
	return fake, c, ws
}
