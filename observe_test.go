package seoapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eventLog is an Observer that records every event it is told.
type eventLog struct {
	mu     sync.Mutex
	events []seoapi.Event
	inject http.Header // added to Event.Header at every attempt start
}

func (l *eventLog) Observe(ctx context.Context, e seoapi.Event) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Type == seoapi.EventAttemptStart {
		for k, v := range l.inject {
			e.Header[k] = v
		}
	}
	e.Header = nil
	l.events = append(l.events, e)
	return ctx
}

func (l *eventLog) all() []seoapi.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]seoapi.Event(nil), l.events...)
}

func (l *eventLog) types() []string {
	var out []string
	for _, e := range l.all() {
		out = append(out, e.Type.String())
	}
	return out
}

func TestObserverSeesCallsAttemptsAndRetries(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, sequence(nil, 503, 503, 200))
	log := &eventLog{}
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(log))
	_, resp, err := c.Projects.List(context.Background(), "ws_1", nil)
	require.NoError(t, err)
	require.Equal(t, 3, resp.Attempts)

	assert.Equal(t, []string{
		"call_start",
		"attempt_start", "attempt_end",
		"attempt_start", "attempt_end",
		"attempt_start", "attempt_end",
		"call_end",
	}, log.types())
	events := log.all()
	for _, e := range events {
		assert.Equal(t, "Projects.List", e.Operation)
		assert.Equal(t, "GET /api/workspaces/{id}/projects", e.Route)
		assert.Equal(t, "GET", e.Method)
		assert.Equal(t, "127.0.0.1", e.ServerAddress)
		assert.NotZero(t, e.ServerPort)
	}
	assert.Equal(t, 503, events[2].StatusCode)
	assert.Equal(t, "server", events[2].ErrorType)
	assert.True(t, events[2].Retry)
	assert.Positive(t, events[2].RetryWait)
	assert.Equal(t, 3, events[6].Attempt)
	assert.False(t, events[6].Retry)
	end := events[7]
	assert.Equal(t, 200, end.StatusCode)
	assert.Equal(t, 3, end.Attempt)
	assert.Empty(t, end.ErrorType)
	assert.NoError(t, end.Err)
	assert.Positive(t, end.Duration)
}

func TestObserverNamesEveryEndpoint(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			respond(200, `[]`)(w, r)
			return
		}
		respond(200, `{"id":"x1"}`)(w, r)
	})
	log := &eventLog{}
	c := newClient(t, rec.srv.URL+"/prefix", seoapi.WithObserver(log))
	ctx := context.Background()
	calls := []struct {
		call          func() error
		operation     string
		route         string
		forbiddenText string // an ID that must not appear in the route
	}{
		{func() error { _, _, err := c.Workspaces.List(ctx, nil); return err }, "Workspaces.List", "GET /api/workspaces", ""},
		{func() error {
			_, _, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "n"})
			return err
		}, "Workspaces.Create", "POST /api/workspaces", ""},
		{func() error { _, _, err := c.Projects.List(ctx, "ws_9", nil); return err }, "Projects.List", "GET /api/workspaces/{id}/projects", "ws_9"},
		{func() error {
			_, _, err := c.Projects.Create(ctx, "ws_9", &seoapi.ProjectCreateRequest{Name: "n", Domain: "d.example"})
			return err
		}, "Projects.Create", "POST /api/workspaces/{id}/projects", "ws_9"},
		{func() error {
			_, _, err := c.Projects.Update(ctx, "ws_9", "p_7", &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("m")})
			return err
		}, "Projects.Update", "PATCH /api/workspaces/{id}/projects/{projectId}", "p_7"},
		{func() error { _, err := c.Projects.Delete(ctx, "ws_9", "p_7"); return err }, "Projects.Delete", "DELETE /api/workspaces/{id}/projects/{projectId}", "p_7"},
		{func() error { _, _, err := c.ContentPlans.List(ctx, "ws_9", nil); return err }, "ContentPlans.List", "GET /api/workspaces/{id}/content-plans", "ws_9"},
		{func() error { _, _, err := c.Members.List(ctx, "ws_9", nil); return err }, "Members.List", "GET /api/workspaces/{id}/members", "ws_9"},
		{func() error {
			_, _, err := c.Members.Add(ctx, "ws_9", &seoapi.MemberAddRequest{Email: "a@b.example", Role: "editor"})
			return err
		}, "Members.Add", "POST /api/workspaces/{id}/members", "ws_9"},
		{func() error { _, _, err := c.Competitors.List(ctx, "ws_9", "p_7", nil); return err }, "Competitors.List", "GET /api/workspaces/{id}/projects/{projectId}/competitors", "p_7"},
		{func() error { _, _, err := c.APIKeys.List(ctx, "ws_9", nil); return err }, "APIKeys.List", "GET /api/workspaces/{id}/api-keys", "ws_9"},
		{func() error {
			_, _, err := c.APIKeys.Create(ctx, "ws_9", &seoapi.APIKeyCreateRequest{Name: "k"})
			return err
		}, "APIKeys.Create", "POST /api/workspaces/{id}/api-keys", "ws_9"},
		{func() error {
			req, err := c.NewRequest(ctx, http.MethodGet, "api/other/ws_9", nil)
			require.NoError(t, err)
			_, err = c.Do(req, nil)
			return err
		}, "Client.Do", "GET /{path}", "ws_9"},
	}
	for _, tt := range calls {
		before := len(log.all())
		require.NoError(t, tt.call(), tt.operation)
		events := log.all()[before:]
		require.NotEmpty(t, events, tt.operation)
		for _, e := range events {
			assert.Equal(t, tt.operation, e.Operation)
			assert.Equal(t, tt.route, e.Route)
			if tt.forbiddenText != "" {
				assert.NotContains(t, e.Route+e.Operation, tt.forbiddenText)
			}
		}
	}
}

func TestObserverInjectsHeadersButNotReservedOnes(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	log := &eventLog{inject: http.Header{
		"Traceparent":   {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		"Authorization": {"Bearer stolen"},
		"User-Agent":    {"spoofed"},
	}}
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(log))
	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	got := rec.requests()[0].Header
	assert.Equal(t, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", got.Get("Traceparent"))
	assert.Equal(t, "Bearer "+testKey, got.Get("Authorization"))
	assert.True(t, strings.HasPrefix(got.Get("User-Agent"), "seoapi-go/"))
}

// panicky panics on every event.
type panicky struct{}

func (panicky) Observe(context.Context, seoapi.Event) context.Context { panic("observer bug") }

func TestObserverPanicDoesNotBreakTheCall(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[{"id":"w1"}]`))
	log := &eventLog{}
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(panicky{}), seoapi.WithObserver(log))
	list, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, []string{"call_start", "attempt_start", "attempt_end", "call_end"}, log.types(),
		"the observers after a panicking one are still told")
}

func TestObserverSeesLimiterWaits(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	log := &eventLog{}
	c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithRateLimit(10000, 2), seoapi.WithObserver(log))
	require.NoError(t, err)
	for range 4 {
		_, _, err := c.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
	}
	var waits []seoapi.Event
	for _, e := range log.all() {
		if e.Type == seoapi.EventLimiterWait {
			waits = append(waits, e)
		}
	}
	require.NotEmpty(t, waits, "four calls at two a second wait for the limiter")
	for _, w := range waits {
		assert.Equal(t, seoapi.WaitPerSecond, w.Level)
		assert.Positive(t, w.Duration)
		assert.Equal(t, "Workspaces.List", w.Operation)
	}
}

func TestObserverErrorEvents(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(404, `{"message":"no such workspace"}`))
	log := &eventLog{}
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(log))
	_, _, err := c.Projects.List(context.Background(), "ws_gone", nil)
	require.ErrorIs(t, err, seoapi.ErrNotFound)
	events := log.all()
	end := events[len(events)-1]
	assert.Equal(t, seoapi.EventCallEnd, end.Type)
	assert.Equal(t, 404, end.StatusCode)
	assert.Equal(t, "not_found", end.ErrorType)
	assert.ErrorIs(t, end.Err, seoapi.ErrNotFound)
}

func TestErrorTypeNamesEveryKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{seoapi.ErrInvalidArgument, "invalid_argument"},
		{fmt.Errorf("wrapped: %w", seoapi.ErrNotFound), "not_found"},
		{seoapi.ErrConnection, "connection"},
		{seoapi.ErrUnexpectedResponse, "unexpected_response"},
		{context.Canceled, "canceled"},
		{context.DeadlineExceeded, "deadline_exceeded"},
		{fmt.Errorf("something else"), "other"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, seoapi.ErrorType(tt.err), "%v", tt.err)
	}
}

func BenchmarkObserverOverhead(b *testing.B) {
	srv := httptest.NewServer(respond(200, `[{"id":"w1","name":"one"},{"id":"w2","name":"two"}]`))
	b.Cleanup(srv.Close)
	for _, name := range []string{"none", "one"} {
		b.Run(name, func(b *testing.B) {
			opts := []seoapi.Option{seoapi.WithoutRateLimit()}
			if name == "one" {
				opts = append(opts, seoapi.WithObserver(nopObserver{}))
			}
			c, err := seoapi.NewClient(srv.URL, testKey, opts...)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := c.Workspaces.List(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type nopObserver struct{}

func (nopObserver) Observe(ctx context.Context, _ seoapi.Event) context.Context { return ctx }

func TestAttemptEventsNameTheCallsKind(t *testing.T) {
	t.Parallel()
	// The server answers only after the caller's deadline: the attempt
	// ends with the context's error, as the call does.
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	log := &eventLog{}
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(log))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := c.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var attemptEnd, callEnd seoapi.Event
	for _, e := range log.all() {
		switch e.Type {
		case seoapi.EventAttemptEnd:
			attemptEnd = e
		case seoapi.EventCallEnd:
			callEnd = e
		}
	}
	assert.Equal(t, "deadline_exceeded", callEnd.ErrorType)
	assert.Equal(t, callEnd.ErrorType, attemptEnd.ErrorType, "the attempt's kind is the call's")
}

// auditObserver sends a request of its own for each call it is told
// about, with the context it is given, as an observer that reports calls
// to an audit service may.
type auditObserver struct {
	url  string
	mu   sync.Mutex
	errs []error
}

func (a *auditObserver) Observe(ctx context.Context, e seoapi.Event) context.Context {
	if e.Type != seoapi.EventCallStart {
		return ctx
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url, nil)
	if err == nil {
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	a.mu.Lock()
	a.errs = append(a.errs, err)
	a.mu.Unlock()
	return ctx
}

// TestObserverSendsItsOwnRequest: an observer's own request with the
// context of a call that has a body reaches its server, through the
// built-in transport and a caller's, before any attempt of the call.
func TestObserverSendsItsOwnRequest(t *testing.T) {
	t.Parallel()
	audit := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(audit.Close)
	tests := []struct {
		name string
		opts []seoapi.Option
	}{
		{"built-in transport", nil},
		{"caller's transport", []seoapi.Option{seoapi.WithHTTPClient(&http.Client{Transport: &http.Transport{}})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obs := &auditObserver{url: audit.URL}
			_, c, _ := newFake(t, append(tt.opts, seoapi.WithObserver(obs))...)
			_, _, err := c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "audited"})
			require.NoError(t, err)
			obs.mu.Lock()
			defer obs.mu.Unlock()
			assert.Equal(t, []error{nil}, obs.errs, "the observer's own request failed")
		})
	}
}

// TestLoggerSaysWhatFailed: a limiter that fails (Redis down, say) is
// logged as a failed wait with its error, and the call's error says that
// nothing was sent; so does a call whose context ends while it waits for
// a slot.
func TestLoggerSaysWhatFailed(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	down := waitFunc(func(context.Context) error { return errors.New("dial tcp 10.0.0.9:6379: connect: connection refused") })
	c, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(down), seoapi.WithLogger(logger))
	require.NoError(t, err)
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrConnection)
	assert.Contains(t, err.Error(), "/api/workspaces: not sent: the rate limiter failed: dial tcp")
	assert.Contains(t, logs.String(), `msg="seoapi: rate limiter wait failed"`)
	assert.Contains(t, logs.String(), `error="dial tcp 10.0.0.9:6379: connect: connection refused"`)
	assert.NotContains(t, logs.String(), "throttled")
	assert.Empty(t, rec.requests())

	// The second call waits about a second for its slot; its context is
	// cancelled meanwhile (or before, which sends nothing either).
	busy, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithRateLimit(seoapi.DefaultRequestsPerHour, 1))
	require.NoError(t, err)
	_, _, err = busy.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer time.AfterFunc(50*time.Millisecond, cancel).Stop()
	_, _, err = busy.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "seoapi: GET "+rec.srv.URL+"/api/workspaces: not sent: context canceled", err.Error())
	assert.Len(t, rec.requests(), 1)
}
