package seoapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sequence answers the i-th request with statuses[i] (the last one
// repeats), adding headers to every answer.
func sequence(headers map[string]string, statuses ...int) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, _ *http.Request) {
		i := int(n.Add(1)) - 1
		status := statuses[min(i, len(statuses)-1)]
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status < 300 {
			w.Write([]byte(`[{"id":"x"}]`))
		} else {
			w.Write([]byte(`{"error":{"message":"status ` + http.StatusText(status) + `"}}`))
		}
	}
}

func TestRetryPolicyByMethodAndStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method   string
		status   int
		attempts int // with 2 retries allowed
	}{
		{"GET", 503, 3}, {"GET", 500, 3}, {"GET", 502, 3}, {"GET", 504, 3}, {"GET", 408, 3}, {"GET", 429, 3},
		{"HEAD", 503, 3}, {"OPTIONS", 503, 3}, {"PUT", 503, 3}, {"DELETE", 502, 3},
		{"GET", 501, 1}, {"GET", 400, 1}, {"GET", 404, 1}, {"GET", 409, 1}, {"DELETE", 501, 1},
		{"POST", 500, 1}, {"POST", 502, 1}, {"POST", 503, 1}, {"POST", 504, 1}, {"POST", 408, 1}, {"POST", 501, 1},
		{"PATCH", 503, 1}, {"PATCH", 500, 1},
		{"POST", 429, 3}, {"PATCH", 429, 3},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+http.StatusText(tt.status), func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, sequence(nil, tt.status))
			c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(2))
			req, err := c.NewRequest(context.Background(), tt.method, "api/workspaces", nil)
			require.NoError(t, err)
			resp, err := c.Do(req, nil)
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			assert.Equal(t, tt.status, apiErr.StatusCode)
			assert.Equal(t, tt.attempts, apiErr.Attempts)
			assert.Equal(t, tt.attempts, resp.Attempts)
			assert.Len(t, rec.requests(), tt.attempts)
		})
	}
}

func TestGETRetriedUntilSuccess(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, sequence(nil, 503, 503, 200))
	ws, resp, err := newClient(t, rec.srv.URL).Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "x"})
	// POST: not retried on 503.
	assert.ErrorIs(t, err, seoapi.ErrServer)
	assert.Nil(t, ws)
	assert.Equal(t, 1, resp.Attempts)

	rec = newRecorder(t, sequence(nil, 503, 503, 200))
	req, err := newClient(t, rec.srv.URL).NewRequest(context.Background(), "GET", "api/workspaces/x", nil)
	require.NoError(t, err)
	resp, err = newClient(t, rec.srv.URL).Do(req, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, resp.Attempts)
	assert.Equal(t, 200, resp.StatusCode)
}

func TestFinalErrorKeepsTheLastResponse(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, sequence(map[string]string{"Retry-After": "0", "X-Request-Id": "last"}, 503))
	_, _, err := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(3)).Projects.List(context.Background(), "ws", nil)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 503, apiErr.StatusCode)
	assert.Equal(t, 4, apiErr.Attempts)
	assert.Equal(t, "last", apiErr.RequestID)
	assert.Contains(t, string(apiErr.Body), "Service Unavailable")
	assert.Equal(t, time.Duration(0), apiErr.RetryAfter)
	assert.NotContains(t, err.Error(), "giving up")
}

func TestWithMaxRetriesZeroTurnsRetryingOff(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, sequence(nil, 503, 200))
	_, _, err := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0)).Projects.List(context.Background(), "ws", nil)
	assert.ErrorIs(t, err, seoapi.ErrServer)
	assert.Len(t, rec.requests(), 1)
}

func TestPOSTNotRepeatedAfter503(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	fake.FailNext(1, 503, nil)
	_, _, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "once"})
	assert.ErrorIs(t, err, seoapi.ErrServer)
	assert.Len(t, fake.Requests(), 1)
	projects, _, err := c.Projects.List(context.Background(), ws, nil)
	require.NoError(t, err)
	assert.Empty(t, projects, "the failed create made nothing, and nothing was created twice")
}

func TestPOSTRetriedAfter429CreatesOne(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	fake.FailNext(1, 429, http.Header{"Retry-After": {"0"}})
	p, resp, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "once"})
	require.NoError(t, err)
	assert.Equal(t, 2, resp.Attempts)
	projects, _, err := c.Projects.List(context.Background(), ws, nil)
	require.NoError(t, err)
	require.Len(t, projects, 1)
	assert.Equal(t, p.ID, projects[0].ID)
}

// refusingDialer refuses the first n dials, as a server that is not yet
// listening does.
func refusingDialer(n int32) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	var refused atomic.Int32
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if refused.Add(1) <= n {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		return d.DialContext(ctx, network, addr)
	}
}

func TestPOSTRetriedAfterRefusedConnection(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	hc := &http.Client{Transport: &http.Transport{DialContext: refusingDialer(2)}}
	c, err := seoapi.NewClient(c.BaseURL().String(), keyOf(t, c, ws), fastOptions(seoapi.WithHTTPClient(hc))...)
	require.NoError(t, err)
	before := len(fake.Requests())
	p, resp, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "after refusal"})
	require.NoError(t, err)
	assert.Equal(t, 3, resp.Attempts)
	assert.Equal(t, "after refusal", p.Name)
	assert.Len(t, fake.Requests(), before+1, "the refused attempts never reached the server")
}

// keyOf issues a fresh key for ws's account by creating one through c.
func keyOf(t *testing.T, c *seoapi.Client, ws string) string {
	t.Helper()
	k, _, err := c.APIKeys.Create(context.Background(), ws, &seoapi.APIKeyCreateRequest{Name: "test"})
	require.NoError(t, err)
	return string(k.Key)
}

func TestPOSTNotRetriedWhenConnectionDropsAfterSending(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	fake.DropNext(1, true)
	before := len(fake.Requests())
	_, _, err := c.Projects.Create(context.Background(), ws, &seoapi.ProjectCreateRequest{Name: "maybe"})
	require.ErrorIs(t, err, seoapi.ErrConnection)
	assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown, "the write may have taken effect")
	var apiErr *seoapi.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Zero(t, apiErr.StatusCode, "no response was used")
	assert.Len(t, fake.Requests(), before+1, "sent once, not repeated")
	projects, _, err := c.Projects.List(context.Background(), ws, nil)
	require.NoError(t, err)
	assert.Len(t, projects, 1, "the create took effect exactly once")
}

func TestGETRetriedWhenConnectionDrops(t *testing.T) {
	t.Parallel()
	fake, c, ws := newFake(t)
	fake.DropNext(1, false)
	_, resp, err := c.Projects.List(context.Background(), ws, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, resp.Attempts, 1)
	assert.GreaterOrEqual(t, len(fake.Requests()), 2, "the dropped request was sent again")
}

// logRecords decodes JSON log lines.
func logRecords(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m))
		out = append(out, m)
	}
	return out
}

func TestRetryAfterDecidesTheWait(t *testing.T) {
	t.Parallel()
	tests := map[string]func() string{
		"seconds":   func() string { return "2" },
		"HTTP date": func() string { return time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat) },
	}
	for name, retryAfter := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var logs syncBuffer
			logger := newJSONLogger(&logs)
			var calls atomic.Int32
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					w.Header().Set("Retry-After", retryAfter())
					w.WriteHeader(429)
					return
				}
				w.WriteHeader(200)
				w.Write([]byte(`[]`))
			})
			c := newClient(t, rec.srv.URL, seoapi.WithLogger(logger))
			_, resp, err := c.Workspaces.List(context.Background(), nil)
			require.NoError(t, err)
			assert.Equal(t, 2, resp.Attempts)

			records := logRecords(t, &logs.buf)
			require.Len(t, records, 3, "debug per attempt plus one warn: %s", logs.buf.String())
			first := records[0]
			assert.Equal(t, "DEBUG", first["level"])
			assert.Equal(t, "GET", first["method"])
			assert.Equal(t, "/api/workspaces", first["path"])
			assert.EqualValues(t, 429, first["status"])
			assert.EqualValues(t, 1, first["attempt"])
			wait := time.Duration(first["wait"].(float64))
			assert.Greater(t, wait, time.Second, "the server's wait, not the millisecond backoff")
			assert.LessOrEqual(t, wait, 3*time.Second)
			assert.Equal(t, "WARN", records[1]["level"])
			assert.EqualValues(t, 2, records[2]["attempt"])
			assert.NotContains(t, logs.buf.String(), testKey)
			assert.NotContains(t, logs.buf.String(), "Bearer")
		})
	}
}

func TestRetryAfterBeyondMaxWaitFailsAtOnce(t *testing.T) {
	t.Parallel()
	// The kind says what the server said: a 503 is ErrServer, with the
	// wait it asked for in RetryAfter (issue 17 item 3).
	for status, kind := range map[int]error{429: seoapi.ErrRateLimited, 503: seoapi.ErrServer} {
		rec := newRecorder(t, sequence(map[string]string{"Retry-After": "3600"}, status))
		c := newClient(t, rec.srv.URL, seoapi.WithMaxWait(10*time.Second))
		start := time.Now()
		_, _, err := c.Workspaces.List(context.Background(), nil)
		requireOneKind(t, err, kind)
		var apiErr *seoapi.APIError
		require.True(t, errors.As(err, &apiErr))
		assert.Equal(t, time.Hour, apiErr.RetryAfter)
		assert.Equal(t, status, apiErr.StatusCode)
		assert.Equal(t, 1, apiErr.Attempts)
		assert.Len(t, rec.requests(), 1)
		assert.Less(t, time.Since(start), 10*time.Second, "an hour's wait is refused, not slept")
	}
}

func TestWaitPastDeadlineFailsAtOnce(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, sequence(map[string]string{"Retry-After": "30"}, 429))
	c := newClient(t, rec.srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := c.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	require.NoError(t, ctx.Err(), "failed before the deadline, not at it")
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 30*time.Second, apiErr.RetryAfter)
}

func TestCancelDuringWaitReturnsAtOnce(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, sequence(map[string]string{"Retry-After": "30"}, 503))
	ctx, cancel := context.WithCancel(context.Background())
	// The first attempt's end comes before the wait for the retry: the
	// context ends in that wait, however slow the machine.
	cancelAtAttemptEnd := observerFunc(func(ctx context.Context, e seoapi.Event) context.Context {
		if e.Type == seoapi.EventAttemptEnd {
			cancel()
		}
		return ctx
	})
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(cancelAtAttemptEnd))
	start := time.Now()
	_, _, err := c.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), 15*time.Second, "the 30 s wait ended with the context")
	assert.Len(t, rec.requests(), 1)
}

// countingLimiter counts the tokens it hands out.
type countingLimiter struct{ n atomic.Int32 }

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.n.Add(1)
	return ctx.Err()
}

func TestRetriesConsumeLimiterTokens(t *testing.T) {
	t.Parallel()
	lim := &countingLimiter{}
	rec := newRecorder(t, sequence(nil, 503, 502, 200))
	c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(waitFunc(lim.Wait)), seoapi.WithRetryWait(time.Millisecond, time.Millisecond))
	require.NoError(t, err)
	_, resp, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 3, resp.Attempts)
	assert.EqualValues(t, 3, lim.n.Load(), "one token per attempt")
}

func TestSharedLimiterAcrossClients(t *testing.T) {
	t.Parallel()
	lim := &countingLimiter{}
	rec := newRecorder(t, respond(200, `[]`))
	for range 2 {
		c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(waitFunc(lim.Wait)))
		require.NoError(t, err)
		_, _, err = c.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
	}
	assert.EqualValues(t, 2, lim.n.Load())
}

func TestLimiterErrorStopsTheCall(t *testing.T) {
	t.Parallel()
	lim, err := seoapi.NewLimiter(1, 10, time.Second)
	require.NoError(t, err)
	rec := newRecorder(t, respond(200, `[]`))
	c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(lim))
	require.NoError(t, err)
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	assert.Len(t, rec.requests(), 1)
}

func TestAttemptTimeoutRetriedOnlyWhenSafe(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"GET", "POST"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					<-r.Context().Done() // held until the client's attempt times out and hangs up
					return
				}
				w.WriteHeader(200)
				w.Write([]byte(`[]`))
			})
			hc := &http.Client{Timeout: 300 * time.Millisecond}
			c := newClient(t, rec.srv.URL, seoapi.WithHTTPClient(hc))
			req, err := c.NewRequest(context.Background(), method, "api/workspaces", nil)
			require.NoError(t, err)
			resp, err := c.Do(req, nil)
			if method == "GET" {
				require.NoError(t, err, "a timed-out GET is retried")
				assert.Equal(t, 2, resp.Attempts)
				return
			}
			require.ErrorIs(t, err, seoapi.ErrConnection, "a timed-out attempt is a connection failure")
			assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown, "a timed-out POST may have taken effect")
			assert.NotErrorIs(t, err, context.DeadlineExceeded, "the caller's context did not end")
			assert.Len(t, rec.requests(), 1, "the POST was sent once")
		})
	}
}

// failingLimiter fails every Wait with err, counting the calls.
type failingLimiter struct {
	err   error
	calls atomic.Int32
}

func (l *failingLimiter) Wait(context.Context) error {
	l.calls.Add(1)
	return l.err
}

// limiterDown is a limiter's own error type, such as a fleet limiter's
// when its store cannot be reached.
type limiterDown struct{}

func (limiterDown) Error() string { return "limiter store unreachable" }

func TestLimiterFailureEndsTheCallAtOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		kind error
	}{
		{"an error of no kind is a connection failure", limiterDown{}, seoapi.ErrConnection},
		{"an error with a kind keeps it", fmt.Errorf("store said: %w", seoapi.ErrUnauthorized), seoapi.ErrUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, method := range []string{"GET", "POST"} {
				rec := newRecorder(t, respond(200, `[]`))
				lim := &failingLimiter{err: tt.err}
				c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(waitFunc(lim.Wait)), seoapi.WithRetryWait(time.Millisecond, time.Millisecond))
				require.NoError(t, err)
				req, err := c.NewRequest(context.Background(), method, "api/workspaces", nil)
				require.NoError(t, err)
				_, err = c.Do(req, nil)
				require.ErrorIs(t, err, tt.kind, method)
				assert.NotErrorIs(t, err, seoapi.ErrOutcomeUnknown, "nothing was sent")
				assert.ErrorIs(t, err, tt.err, "the limiter's error stays reachable")
				var apiErr *seoapi.APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Zero(t, apiErr.Attempts)
				assert.EqualValues(t, 1, lim.calls.Load(), "%s: not retried", method)
				assert.Empty(t, rec.requests(), "nothing reached the server")
			}
		})
	}
}
