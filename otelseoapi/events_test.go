package otelseoapi_test

// These tests feed the observer hand-made events with exact times, so that
// durations and timestamps can be asserted to the nanosecond; the tests in
// client_test.go send real calls through a seoapi.Client.

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/otelseoapi"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// listURL is the URL of the events' call: it holds IDs that must not
// reach a span or metric.
const listURL = "https://api.example.com/api/workspaces/ws_7Hq2/projects?page=2"

// listEvent returns an event of a Projects.List call of workspace ws_7Hq2.
func listEvent(typ seoapi.EventType, attempt int, start time.Time, d time.Duration) seoapi.Event {
	return seoapi.Event{
		Type: typ, Operation: "Projects.List", Route: route, Method: http.MethodGet, URL: listURL,
		ServerAddress: "api.example.com", ServerPort: 443,
		Attempt: attempt, Start: start, Duration: d,
	}
}

// errServer is an error like the SDK's, whose message holds the URL.
var errServer = fmt.Errorf("%w: GET %s: 503 Service Unavailable", seoapi.ErrServer, listURL)

func TestObserverRetriedCallWithWait(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := h.observe(t.Context(), listEvent(seoapi.EventCallStart, 0, t0, 0))

	// Attempt 1 waits 200ms for the per-second limit, then gets a 503 after
	// 100ms more and is retried after 100ms.
	h1 := http.Header{}
	e := listEvent(seoapi.EventAttemptStart, 1, t0, 0)
	e.Header = h1
	actx := h.observe(ctx, e)
	e = listEvent(seoapi.EventLimiterWait, 1, t0, 200*time.Millisecond)
	e.Level = seoapi.WaitPerSecond
	h.observe(actx, e)
	e = listEvent(seoapi.EventAttemptEnd, 1, t0, 300*time.Millisecond)
	e.StatusCode, e.Err, e.ErrorType = 503, errServer, "server"
	e.Retry, e.RetryWait = true, 100*time.Millisecond
	h.observe(actx, e)

	// Attempt 2 succeeds in 50ms.
	h2 := http.Header{}
	e = listEvent(seoapi.EventAttemptStart, 2, t0.Add(400*time.Millisecond), 0)
	e.Header = h2
	actx = h.observe(ctx, e)
	e = listEvent(seoapi.EventAttemptEnd, 2, t0.Add(400*time.Millisecond), 50*time.Millisecond)
	e.StatusCode = 200
	h.observe(actx, e)

	e = listEvent(seoapi.EventCallEnd, 2, t0, 450*time.Millisecond)
	e.StatusCode = 200
	h.observe(ctx, e)

	spans := h.ended()
	require.Len(t, spans, 3, "names: the call, its attempts, the wait")
	call, wait := one(t, spans, route), one(t, spans, "seoapi.limiter.wait")
	attempts := spans["HTTP "+route]
	require.Len(t, attempts, 2)
	first, second := attempts[0], attempts[1]

	// The call span.
	assert.Equal(t, trace.SpanKindClient, call.SpanKind())
	assert.False(t, call.Parent().IsValid(), "the call span is a root here")
	assert.Equal(t, t0, call.StartTime())
	assert.Equal(t, t0.Add(450*time.Millisecond), call.EndTime())
	assert.Equal(t, map[string]any{
		"http.request.method": "GET", "url.template": "/api/workspaces/{id}/projects",
		"server.address": "api.example.com", "server.port": int64(443),
		"seoapi.operation": "Projects.List", "http.response.status_code": int64(200), "seoapi.attempts": int64(2),
	}, attrs(call))
	assert.Equal(t, codes.Unset, call.Status().Code)

	// The two attempts, children of the call, each in its own traceparent.
	for i, a := range attempts {
		assert.Equal(t, trace.SpanKindClient, a.SpanKind())
		assert.Equal(t, call.SpanContext().SpanID(), a.Parent().SpanID(), "attempt %d", i+1)
		assert.Equal(t, call.SpanContext().TraceID(), a.SpanContext().TraceID(), "attempt %d", i+1)
	}
	assert.Equal(t, traceparent(first), h1.Get("Traceparent"))
	assert.Equal(t, traceparent(second), h2.Get("Traceparent"))
	assert.Equal(t, t0, first.StartTime())
	assert.Equal(t, t0.Add(300*time.Millisecond), first.EndTime())
	assert.Equal(t, map[string]any{
		"http.request.method": "GET", "url.template": "/api/workspaces/{id}/projects",
		"server.address": "api.example.com", "server.port": int64(443),
		"http.response.status_code": int64(503), "error.type": "server", "seoapi.retry.wait": 0.1,
	}, attrs(first))
	assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: "server"}, first.Status())
	assert.Empty(t, first.Events(), "the error's message (it holds the URL) is not recorded")
	assert.Equal(t, map[string]any{
		"http.request.method": "GET", "url.template": "/api/workspaces/{id}/projects",
		"server.address": "api.example.com", "server.port": int64(443),
		"http.response.status_code": int64(200), "http.request.resend_count": int64(1),
	}, attrs(second))
	assert.Equal(t, codes.Unset, second.Status().Code)

	// The wait, a child of the first attempt.
	assert.Equal(t, trace.SpanKindInternal, wait.SpanKind())
	assert.Equal(t, first.SpanContext().SpanID(), wait.Parent().SpanID())
	assert.Equal(t, t0, wait.StartTime())
	assert.Equal(t, t0.Add(200*time.Millisecond), wait.EndTime())
	assert.Equal(t, map[string]any{"seoapi.wait.level": "per_second"}, attrs(wait))

	// Request durations leave the limiter wait out.
	const failed = "error.type=server,http.request.method=GET,http.response.status_code=503,server.address=api.example.com,server.port=443,url.template=/api/workspaces/{id}/projects"
	m := h.metrics(t)
	assertPoints(t, map[string]point{
		failed: {Count: 1, Sum: 0.1},
		"http.request.method=GET,http.response.status_code=200,server.address=api.example.com,server.port=443,url.template=/api/workspaces/{id}/projects": {Count: 1, Sum: 0.05},
	}, m["http.client.request.duration"])
	assertPoints(t, map[string]point{
		"http.request.method=GET,http.response.status_code=200,seoapi.operation=Projects.List,server.address=api.example.com,server.port=443,url.template=/api/workspaces/{id}/projects": {Count: 1, Sum: 0.45},
	}, m["seoapi.client.call.duration"])
	assert.Equal(t, map[string]point{failed: {Count: 1}}, m["seoapi.client.retries"])
	assertPoints(t, map[string]point{"seoapi.wait.level=per_second": {Count: 1, Sum: 0.2}}, m["seoapi.client.limiter.wait.duration"])
	assert.NotContains(t, m, "seoapi.client.rate_limited", "no 429 was seen")

	assertNoIDs(t, h, "ws_7Hq2", "page=2", "example.com/api")
}

func TestObserverJoinsCallerSpanAndKeepsItsOwnState(t *testing.T) {
	t.Parallel()
	// Two observers on one client, each with its own provider: each one's
	// attempt is the child of its own call span, whichever ran last.
	a, b := newHarness(t), newHarness(t)
	ctx, parent := a.tp.Tracer("caller").Start(t.Context(), "caller")
	observeBoth := func(ctx context.Context, e seoapi.Event) context.Context {
		return b.observe(a.observe(ctx, e), e)
	}
	ctx = observeBoth(ctx, listEvent(seoapi.EventCallStart, 0, t0, 0))
	e := listEvent(seoapi.EventAttemptStart, 1, t0, 0)
	e.Header = http.Header{}
	actx := observeBoth(ctx, e)
	end := listEvent(seoapi.EventAttemptEnd, 1, t0, time.Millisecond)
	end.StatusCode = 200
	observeBoth(actx, end)
	end = listEvent(seoapi.EventCallEnd, 1, t0, time.Millisecond)
	end.StatusCode = 200
	observeBoth(ctx, end)
	parent.End()

	for name, h := range map[string]*harness{"a": a, "b": b} {
		spans := h.ended()
		call, attempt := one(t, spans, route), one(t, spans, "HTTP "+route)
		assert.Equal(t, call.SpanContext().SpanID(), attempt.Parent().SpanID(), name)
		assert.Equal(t, parent.SpanContext().TraceID(), call.SpanContext().TraceID(), name)
	}
	assert.Equal(t, parent.SpanContext().SpanID(), one(t, a.ended(), route).Parent().SpanID(),
		"the call span is a child of the caller's span")
	// b's spans were started last, so its attempt's context is what the
	// request carries.
	assert.Equal(t, traceparent(one(t, b.ended(), "HTTP "+route)), e.Header.Get("Traceparent"))
}

func TestObserverPropagator(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opts   []otelseoapi.Option
		header string
	}{
		// No global propagator is set in these tests: the default is W3C
		// Trace Context all the same.
		{"default", nil, "Traceparent"},
		{"nil is the default", []otelseoapi.Option{otelseoapi.WithPropagator(nil)}, "Traceparent"},
		{"baggage only", []otelseoapi.Option{otelseoapi.WithPropagator(propagation.Baggage{})}, ""},
		{"none", []otelseoapi.Option{otelseoapi.WithPropagator(propagation.NewCompositeTextMapPropagator())}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.opts...)
			ctx := h.observe(t.Context(), listEvent(seoapi.EventCallStart, 0, t0, 0))
			e := listEvent(seoapi.EventAttemptStart, 1, t0, 0)
			e.Header = http.Header{}
			h.observe(ctx, e)
			if tc.header == "" {
				assert.Empty(t, e.Header)
				return
			}
			assert.Equal(t, []string{tc.header}, keys(e.Header))
		})
	}
}

func keys(h http.Header) []string {
	var out []string
	for k := range h {
		out = append(out, k)
	}
	return out
}

func TestObserverAttemptsNotSent(t *testing.T) {
	t.Parallel()
	canceled := fmt.Errorf("seoapi: GET %s: %w", listURL, context.Canceled)
	refused := fmt.Errorf("%w: GET %s: not sent", seoapi.ErrRateLimited, listURL)
	for _, tc := range []struct {
		name      string
		wait      *seoapi.Event // the attempt's limiter wait, if any
		end       seoapi.Event  // its end
		waitAttrs map[string]any
		waitPoint string
	}{
		{
			name:      "canceled during the wait",
			wait:      &seoapi.Event{Level: seoapi.WaitPerHour, Duration: 30 * time.Millisecond, Err: context.Canceled, ErrorType: "canceled"},
			end:       seoapi.Event{Duration: 30 * time.Millisecond, Err: canceled, ErrorType: "canceled"},
			waitAttrs: map[string]any{"seoapi.wait.level": "per_hour", "error.type": "canceled"},
			waitPoint: "error.type=canceled,seoapi.wait.level=per_hour",
		},
		{
			name: "wait refused",
			end:  seoapi.Event{Err: refused, ErrorType: "rate_limited"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			ctx := h.observe(t.Context(), listEvent(seoapi.EventCallStart, 0, t0, 0))
			start := listEvent(seoapi.EventAttemptStart, 1, t0, 0)
			start.Header = http.Header{}
			actx := h.observe(ctx, start)
			if tc.wait != nil {
				e := listEvent(seoapi.EventLimiterWait, 1, t0, tc.wait.Duration)
				e.Level, e.Err, e.ErrorType = tc.wait.Level, tc.wait.Err, tc.wait.ErrorType
				h.observe(actx, e)
			}
			e := listEvent(seoapi.EventAttemptEnd, 1, t0, tc.end.Duration)
			e.Err, e.ErrorType = tc.end.Err, tc.end.ErrorType
			h.observe(actx, e)
			e = listEvent(seoapi.EventCallEnd, 1, t0, tc.end.Duration)
			e.Err, e.ErrorType = tc.end.Err, tc.end.ErrorType
			h.observe(ctx, e)

			spans := h.ended()
			call, attempt := one(t, spans, route), one(t, spans, "HTTP "+route)
			for _, s := range []sdktrace.ReadOnlySpan{call, attempt} {
				assert.Equal(t, sdktrace.Status{Code: codes.Error, Description: tc.end.ErrorType}, s.Status(), s.Name())
				assert.Equal(t, tc.end.ErrorType, attrs(s)["error.type"], s.Name())
				assert.NotContains(t, attrs(s), "http.response.status_code", s.Name())
			}
			assert.Equal(t, int64(1), attrs(call)["seoapi.attempts"])

			m := h.metrics(t)
			assert.NotContains(t, m, "http.client.request.duration", "nothing was sent")
			assert.NotContains(t, m, "seoapi.client.retries")
			assert.Equal(t, map[string]uint64{
				"error.type=" + tc.end.ErrorType + ",http.request.method=GET,seoapi.operation=Projects.List,server.address=api.example.com,server.port=443,url.template=/api/workspaces/{id}/projects": 1,
			}, counts(m["seoapi.client.call.duration"]))
			if tc.wait == nil {
				assert.NotContains(t, spans, "seoapi.limiter.wait")
				assert.NotContains(t, m, "seoapi.client.limiter.wait.duration")
			} else {
				wait := one(t, spans, "seoapi.limiter.wait")
				assert.Equal(t, attempt.SpanContext().SpanID(), wait.Parent().SpanID())
				assert.Equal(t, tc.waitAttrs, attrs(wait))
				assert.Equal(t, codes.Error, wait.Status().Code)
				assertPoints(t, map[string]point{tc.waitPoint: {Count: 1, Sum: tc.wait.Duration.Seconds()}}, m["seoapi.client.limiter.wait.duration"])
			}
			assertNoIDs(t, h, "ws_7Hq2", "page=2", "example.com/api")
		})
	}
}

// TestObserverUsesTheGlobalPropagator sets the global propagator, so it
// does not run in parallel; it leaves one that writes nothing, which the
// observer treats as none set.
func TestObserverUsesTheGlobalPropagator(t *testing.T) {
	otel.SetTextMapPropagator(propagation.Baggage{})
	t.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })

	h := newHarness(t)
	member, err := baggage.NewMember("tenant", "acme")
	require.NoError(t, err)
	bag, err := baggage.New(member)
	require.NoError(t, err)
	ctx := h.observe(baggage.ContextWithBaggage(t.Context(), bag), listEvent(seoapi.EventCallStart, 0, t0, 0))
	e := listEvent(seoapi.EventAttemptStart, 1, t0, 0)
	e.Header = http.Header{}
	h.observe(ctx, e)
	assert.Equal(t, http.Header{"Baggage": {"tenant=acme"}}, e.Header, "the global propagator, not Trace Context")
}

// TestObserverToleratesStrayEvents gives each event with a context that
// holds none of the observer's state and with zero fields: the observer
// neither panics nor drops the context.
func TestObserverToleratesStrayEvents(t *testing.T) {
	t.Parallel()
	types := []seoapi.EventType{seoapi.EventCallStart, seoapi.EventAttemptStart, seoapi.EventLimiterWait,
		seoapi.EventAttemptEnd, seoapi.EventCallEnd, 0, 99}
	for _, typ := range types {
		t.Run(typ.String(), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			type key struct{}
			ctx := context.WithValue(t.Context(), key{}, "kept")
			for _, e := range []seoapi.Event{{Type: typ}, listEvent(typ, 1, time.Time{}, time.Millisecond)} {
				var got context.Context
				require.NotPanics(t, func() { got = h.observe(ctx, e) })
				require.NotNil(t, got)
				assert.Equal(t, "kept", got.Value(key{}))
			}
		})
	}
}
