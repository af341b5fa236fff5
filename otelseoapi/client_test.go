package otelseoapi_test

// These tests send real calls through a seoapi.Client to an httptest
// server, and assert what reached the server and what the observer
// reported.

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/seoapi/seoapi-go"
)

const (
	// route is the route the SDK gives Projects.List.
	route       = "GET /api/workspaces/{id}/projects"
	template    = "/api/workspaces/{id}/projects"
	workspaceID = "ws_7Hq2"
	listPath    = "/api/workspaces/" + workspaceID + "/projects"
)

// received is what the server saw of one request.
type received struct {
	Method, Path, Traceparent string
}

// api is an httptest server that answers the statuses it is given in
// order, then 200 with a list of one project, and records every request.
type api struct {
	srv *httptest.Server

	mu       sync.Mutex
	statuses []int
	got      []received
}

func newAPI(t *testing.T, statuses ...int) *api {
	t.Helper()
	a := &api{statuses: statuses}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *api) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.got = append(a.got, received{r.Method, r.URL.Path, r.Header.Get("Traceparent")})
	status := http.StatusOK
	if len(a.statuses) > 0 {
		status, a.statuses = a.statuses[0], a.statuses[1:]
	}
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch status {
	case http.StatusOK:
		_, _ = w.Write([]byte(`[{"id":"proj_9Zk1","name":"Shop","workspaceId":"` + workspaceID + `"}]`))
		return
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "0")
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":{"code":"e","message":"failed for ` + workspaceID + `"}}`))
}

func (a *api) received() []received {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]received(nil), a.got...)
}

// port is the server's port as the observer reports it.
func (a *api) port(t *testing.T) int64 {
	u, err := url.Parse(a.srv.URL)
	require.NoError(t, err)
	p, err := strconv.Atoi(u.Port())
	require.NoError(t, err)
	return int64(p)
}

func (h *harness) client(t *testing.T, a *api, opts ...seoapi.Option) *seoapi.Client {
	t.Helper()
	c, err := seoapi.NewClient(a.srv.URL, "sk_test_secret", append([]seoapi.Option{
		seoapi.WithObserver(h.obs), seoapi.WithRetryWait(time.Millisecond, time.Millisecond),
	}, opts...)...)
	require.NoError(t, err)
	return c
}

// requestAttrs are the attributes of every span of a Projects.List call.
func requestAttrs(a *api, t *testing.T, more map[string]any) map[string]any {
	m := map[string]any{
		"http.request.method": "GET", "url.template": template,
		"server.address": "127.0.0.1", "server.port": a.port(t),
	}
	for k, v := range more {
		m[k] = v
	}
	return m
}

func TestCallRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		statuses   []int // answered before the 200
		errorType  string
		rateLimits uint64
	}{
		{"503 twice", []int{503, 503}, "server", 0},
		{"429 twice", []int{429, 429}, "rate_limited", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, a := newHarness(t), newAPI(t, tc.statuses...)
			ctx, parent := h.tp.Tracer("caller").Start(t.Context(), "caller")
			projects, resp, err := h.client(t, a).Projects.List(ctx, workspaceID, nil)
			parent.End()
			require.NoError(t, err)
			require.Len(t, projects, 1)
			assert.Equal(t, 3, resp.Attempts)

			spans := h.ended()
			call := one(t, spans, route)
			assert.Equal(t, trace.SpanKindClient, call.SpanKind())
			assert.Equal(t, parent.SpanContext().SpanID(), call.Parent().SpanID(), "the call joins the caller's trace")
			assert.Equal(t, requestAttrs(a, t, map[string]any{
				"seoapi.operation": "Projects.List", "seoapi.attempts": int64(3), "http.response.status_code": int64(200),
			}), attrs(call))
			assert.Equal(t, codes.Unset, call.Status().Code)

			attempts := spans["HTTP "+route]
			require.Len(t, attempts, 3)
			got := a.received()
			require.Len(t, got, 3)
			for i, s := range attempts {
				assert.Equal(t, received{http.MethodGet, listPath, traceparent(s)}, got[i], "attempt %d", i+1)
				assert.Equal(t, call.SpanContext().SpanID(), s.Parent().SpanID(), "attempt %d", i+1)
				assert.Equal(t, trace.SpanKindClient, s.SpanKind())
				want := requestAttrs(a, t, map[string]any{"http.response.status_code": int64(200)})
				if i > 0 {
					want["http.request.resend_count"] = int64(i)
				}
				if i < 2 {
					want["http.response.status_code"] = int64(tc.statuses[i])
					want["error.type"] = tc.errorType
					assert.Contains(t, attrs(s), "seoapi.retry.wait")
					want["seoapi.retry.wait"] = attrs(s)["seoapi.retry.wait"]
					assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: tc.errorType}, s.Status())
				}
				assert.Equal(t, want, attrs(s), "attempt %d", i+1)
			}

			port := strconv.FormatInt(a.port(t), 10)
			failed := "error.type=" + tc.errorType + ",http.request.method=GET,http.response.status_code=" + strconv.Itoa(tc.statuses[0]) +
				",server.address=127.0.0.1,server.port=" + port + ",url.template=" + template
			ok := "http.request.method=GET,http.response.status_code=200,server.address=127.0.0.1,server.port=" + port +
				",url.template=" + template
			m := h.metrics(t)
			assert.Equal(t, map[string]uint64{failed: 2, ok: 1}, counts(m["http.client.request.duration"]))
			assert.Equal(t, map[string]uint64{failed: 2}, counts(m["seoapi.client.retries"]))
			assert.Equal(t, map[string]uint64{
				"http.request.method=GET,http.response.status_code=200,seoapi.operation=Projects.List,server.address=127.0.0.1,server.port=" + port +
					",url.template=" + template: 1,
			}, counts(m["seoapi.client.call.duration"]))
			if tc.rateLimits > 0 {
				assert.Equal(t, map[string]uint64{failed: tc.rateLimits}, counts(m["seoapi.client.rate_limited"]))
			} else {
				assert.NotContains(t, m, "seoapi.client.rate_limited")
			}
			assertNoIDs(t, h, workspaceID, "proj_9Zk1", "sk_test")
		})
	}
}

func TestCallNotFound(t *testing.T) {
	t.Parallel()
	h, a := newHarness(t), newAPI(t, http.StatusNotFound)
	_, _, err := h.client(t, a).Projects.List(t.Context(), workspaceID, nil)
	require.ErrorIs(t, err, seoapi.ErrNotFound)

	assert.Equal(t, []received{{http.MethodGet, listPath, traceparent(one(t, h.ended(), "HTTP "+route))}}, a.received())
	spans := h.ended()
	call, attempt := one(t, spans, route), one(t, spans, "HTTP "+route)
	assert.Equal(t, requestAttrs(a, t, map[string]any{
		"seoapi.operation": "Projects.List", "seoapi.attempts": int64(1),
		"http.response.status_code": int64(404), "error.type": "not_found",
	}), attrs(call))
	assert.Equal(t, requestAttrs(a, t, map[string]any{"http.response.status_code": int64(404), "error.type": "not_found"}), attrs(attempt))
	for _, s := range []sdktrace.ReadOnlySpan{call, attempt} {
		assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "not_found"}, s.Status(), s.Name())
		assert.Empty(t, s.Events(), "no error message: it holds the URL")
	}
	assert.Equal(t, call.SpanContext().SpanID(), attempt.Parent().SpanID())

	port := strconv.FormatInt(a.port(t), 10)
	m := h.metrics(t)
	assert.Equal(t, map[string]uint64{
		"error.type=not_found,http.request.method=GET,http.response.status_code=404,server.address=127.0.0.1,server.port=" + port +
			",url.template=" + template: 1,
	}, counts(m["http.client.request.duration"]))
	assert.NotContains(t, m, "seoapi.client.retries")
	assert.NotContains(t, m, "seoapi.client.rate_limited")
	assertNoIDs(t, h, workspaceID, "proj_9Zk1", "sk_test")
}

func TestCallHeldByLimiter(t *testing.T) {
	t.Parallel()
	h, a := newHarness(t), newAPI(t)
	c := h.client(t, a, seoapi.WithRateLimit(10000, 1))
	for range 2 {
		_, _, err := c.Projects.List(t.Context(), workspaceID, nil)
		require.NoError(t, err)
	}
	got := a.received()
	require.Len(t, got, 2)

	spans := h.ended()
	calls, attempts := spans[route], spans["HTTP "+route]
	require.Len(t, calls, 2)
	require.Len(t, attempts, 2)
	for i := range 2 {
		assert.Equal(t, received{http.MethodGet, listPath, traceparent(attempts[i])}, got[i])
		assert.Equal(t, calls[i].SpanContext().SpanID(), attempts[i].Parent().SpanID())
	}
	// The second call waited for the rolling second, inside its attempt.
	var held []sdktrace.ReadOnlySpan
	for _, w := range spans["seoapi.limiter.wait"] {
		if w.EndTime().Sub(w.StartTime()) >= 500*time.Millisecond {
			held = append(held, w)
		}
	}
	require.Len(t, held, 1, "one wait for the per-second limit")
	wait := held[0]
	assert.Equal(t, attempts[1].SpanContext().SpanID(), wait.Parent().SpanID())
	assert.Equal(t, map[string]any{"seoapi.wait.level": "per_second"}, attrs(wait))
	assert.Equal(t, codes.Unset, wait.Status().Code)
	assert.False(t, wait.StartTime().Before(attempts[1].StartTime()))
	assert.False(t, wait.EndTime().After(attempts[1].EndTime()))

	m := h.metrics(t)
	p := m["seoapi.client.limiter.wait.duration"]["seoapi.wait.level=per_second"]
	assert.Equal(t, uint64(len(spans["seoapi.limiter.wait"])), p.Count)
	assert.GreaterOrEqual(t, p.Sum, 0.5)
	// The HTTP request durations leave the wait out; the call's has it.
	var requestSum float64
	for _, p := range m["http.client.request.duration"] {
		requestSum += p.Sum
	}
	assert.Less(t, requestSum, p.Sum)
	assertNoIDs(t, h, workspaceID, "proj_9Zk1", "sk_test")
}

// blockingLimiter holds every request until its context ends, and says
// when one is waiting.
type blockingLimiter struct{ waiting chan struct{} }

func (l blockingLimiter) Acquire(ctx context.Context, _ time.Duration) (func(bool), error) {
	l.waiting <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (blockingLimiter) Hold(context.Context, time.Duration) {}

func (blockingLimiter) Budget(context.Context) (seoapi.Budget, error) { return seoapi.Budget{}, nil }

func TestCallCanceledDuringWait(t *testing.T) {
	t.Parallel()
	h, a := newHarness(t), newAPI(t)
	lim := blockingLimiter{waiting: make(chan struct{})}
	c := h.client(t, a, seoapi.WithLimiter(lim))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-lim.waiting
		cancel()
	}()
	_, _, err := c.Projects.List(ctx, workspaceID, nil)
	require.True(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.Empty(t, a.received(), "nothing was sent")

	spans := h.ended()
	call, attempt, wait := one(t, spans, route), one(t, spans, "HTTP "+route), one(t, spans, "seoapi.limiter.wait")
	assert.Equal(t, call.SpanContext().SpanID(), attempt.Parent().SpanID())
	assert.Equal(t, attempt.SpanContext().SpanID(), wait.Parent().SpanID())
	assert.Equal(t, map[string]any{"seoapi.wait.level": "limiter", "error.type": "canceled"}, attrs(wait))
	assert.Equal(t, requestAttrs(a, t, map[string]any{
		"seoapi.operation": "Projects.List", "seoapi.attempts": int64(0), "error.type": "canceled",
	}), attrs(call))
	for _, s := range []sdktrace.ReadOnlySpan{call, attempt, wait} {
		assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "canceled"}, s.Status(), s.Name())
	}

	m := h.metrics(t)
	assert.NotContains(t, m, "http.client.request.duration", "no request was sent")
	assert.Equal(t, map[string]uint64{"error.type=canceled,seoapi.wait.level=limiter": 1}, counts(m["seoapi.client.limiter.wait.duration"]))
	assertNoIDs(t, h, workspaceID, "sk_test")
}

// spanContexts is a slog handler that keeps the span context each record
// was logged with.
type spanContexts struct {
	mu  sync.Mutex
	got []trace.SpanContext
}

func (h *spanContexts) Enabled(context.Context, slog.Level) bool { return true }
func (h *spanContexts) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *spanContexts) WithGroup(string) slog.Handler            { return h }
func (h *spanContexts) Handle(ctx context.Context, _ slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.got = append(h.got, trace.SpanContextFromContext(ctx))
	return nil
}

func TestLogRecordsCarryTheAttemptSpan(t *testing.T) {
	t.Parallel()
	// Whichever observer comes first, the attempt's events reach the logger
	// with the context every observer has added to.
	for _, order := range []string{"logger first", "observer first"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			h, a, logs := newHarness(t), newAPI(t, http.StatusServiceUnavailable), &spanContexts{}
			opts := []seoapi.Option{seoapi.WithLogger(slog.New(logs)), seoapi.WithObserver(h.obs)}
			if order == "observer first" {
				opts[0], opts[1] = opts[1], opts[0]
			}
			c, err := seoapi.NewClient(a.srv.URL, "sk_test_secret", append(opts, seoapi.WithRetryWait(time.Millisecond, time.Millisecond))...)
			require.NoError(t, err)
			_, _, err = c.Projects.List(t.Context(), workspaceID, nil)
			require.NoError(t, err)

			attempts := h.ended()["HTTP "+route]
			require.Len(t, attempts, 2)
			logs.mu.Lock()
			defer logs.mu.Unlock()
			logged := map[trace.SpanID]bool{}
			for _, sc := range logs.got {
				logged[sc.SpanID()] = true
			}
			assert.Equal(t, map[trace.SpanID]bool{
				attempts[0].SpanContext().SpanID(): true, attempts[1].SpanContext().SpanID(): true,
			}, logged, "every record is logged in an attempt's span, and each attempt logged")
		})
	}
}

func TestClientDoRoutes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, path string
		name         string         // of the call span
		want         map[string]any // the call span's attributes besides server.*
	}{
		{
			http.MethodGet, "api/workspaces/" + workspaceID + "/projects", route,
			map[string]any{"http.request.method": "GET", "url.template": template, "seoapi.operation": "Projects.List"},
		},
		{
			http.MethodGet, "api/reports/rep_42", "GET /{path}",
			map[string]any{"http.request.method": "GET", "url.template": "/{path}", "seoapi.operation": "Client.Do"},
		},
		{
			"PURGE", "api/workspaces/" + workspaceID + "/cache", "HTTP /{path}",
			map[string]any{
				"http.request.method": "_OTHER", "http.request.method_original": "PURGE",
				"url.template": "/{path}", "seoapi.operation": "Client.Do",
			},
		},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			t.Parallel()
			h, a := newHarness(t), newAPI(t)
			c := h.client(t, a)
			req, err := c.NewRequest(t.Context(), tc.method, tc.path, nil)
			require.NoError(t, err)
			_, err = c.Do(req, nil)
			require.NoError(t, err)

			spans := h.ended()
			var call, attempt sdktrace.ReadOnlySpan
			if tc.method == "PURGE" {
				// Both spans are "HTTP /{path}": the method is no part of a name.
				require.Len(t, spans, 1)
				require.Len(t, spans[tc.name], 2)
				call, attempt = spans[tc.name][0], spans[tc.name][1]
				if call.Parent().SpanID() == attempt.SpanContext().SpanID() {
					call, attempt = attempt, call
				}
			} else {
				call, attempt = one(t, spans, tc.name), one(t, spans, "HTTP "+tc.name)
			}
			assert.Equal(t, []received{{tc.method, "/" + tc.path, traceparent(attempt)}}, a.received())
			want := map[string]any{
				"server.address": "127.0.0.1", "server.port": a.port(t),
				"http.response.status_code": int64(200), "seoapi.attempts": int64(1),
			}
			for k, v := range tc.want {
				want[k] = v
			}
			assert.Equal(t, want, attrs(call))
			assert.Equal(t, tc.want["http.request.method_original"], attrs(attempt)["http.request.method_original"])
			assert.Equal(t, call.SpanContext().SpanID(), attempt.Parent().SpanID())
			for set := range h.metrics(t)["http.client.request.duration"] {
				assert.NotContains(t, set, "method_original", "a metric never names a method outside the standard")
			}
			assertNoIDs(t, h, workspaceID, "rep_42", "cache")
		})
	}
}
