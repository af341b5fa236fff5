package seoapi

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Observer is told what each call of a Client does (docs/observability.md).
// The context Observe returns comes with the events that follow, so a span
// can live in it; the request keeps the caller's context. An Observer must
// be safe for concurrent use; a panic in Observe is recovered.
type Observer interface {
	Observe(ctx context.Context, e Event) context.Context
}

// EventType says what an Event reports.
type EventType uint8

// The events of a call, in order: one EventCallStart; for each attempt an
// EventAttemptStart, an EventLimiterWait per wait for the rate limit, and
// an EventAttemptEnd; one EventCallEnd.
const (
	EventCallStart EventType = iota + 1
	EventAttemptStart
	EventLimiterWait
	EventAttemptEnd
	EventCallEnd
)

// String returns the event type's name, such as "call_start".
func (t EventType) String() string {
	names := [...]string{"unknown", "call_start", "attempt_start", "limiter_wait", "attempt_end", "call_end"}
	if int(t) < len(names) {
		return names[t]
	}
	return "unknown"
}

// WaitLevel says which limit held a request back.
type WaitLevel string

// The limits a request can wait for.
const (
	WaitPerSecond WaitLevel = "per_second" // the built-in limiter's rolling second
	WaitPerHour   WaitLevel = "per_hour"   // the built-in limiter's rolling hour
	WaitServer    WaitLevel = "server"     // the server's hold: Remaining 0 until a reset, or a 429's Retry-After
	WaitLimiter   WaitLevel = "limiter"    // a Limiter given with WithLimiter, such as a fleet limiter
)

// Event is one thing a call did; which fields are set depends on Type
// (see docs/observability.md). An Event never holds the API key, and an
// *APIError in Err has its body and header redacted.
type Event struct {
	Type      EventType
	Operation string // the SDK method, such as "Projects.List"; "Client.Do" for a request of no endpoint
	// Route is the method and path template, such as "GET /api/workspaces/{id}/projects",
	// or "METHOD /{path}" for no endpoint. It holds no ID, so it suits metric labels.
	Route         string
	Method        string // the request's HTTP method
	URL           string // the request URL as APIError.URL shows it; it holds IDs: never a metric label
	ServerAddress string // the base URL's host
	ServerPort    int    // the base URL's port

	Attempt    int           // the attempt's number, from 1; at EventCallEnd, the attempts sent
	Start      time.Time     // when the call, the attempt or the wait began
	Duration   time.Duration // how long it took, in the events that end one
	StatusCode int           // the response's status; 0 when there was none
	Err        error         // what the attempt, the call or the wait ended with
	ErrorType  string        // Err's kind, such as "not_found" (see ErrorType); empty on success
	RequestID  string        // the server's request ID, when it sent one
	Retry      bool          // at EventAttemptEnd: another attempt follows, after RetryWait
	RetryWait  time.Duration
	Level      WaitLevel // at EventLimiterWait: the limit that held the request back

	// Header, at EventAttemptStart, takes headers to send with the attempt, such as
	// W3C trace context; not Authorization, Content-Type, Accept or User-Agent.
	Header http.Header
}

// observation is what one call's events share: each event is a copy of
// the one that opened its call or its attempt.
type observation struct {
	call       *call
	start      Event // the call's EventCallStart
	ctx        context.Context
	attempt    Event // the open attempt's EventAttemptStart; Attempt is 0 when none is open
	attemptCtx context.Context
	ended      Event       // the open attempt's EventAttemptEnd, once CheckRetry judged it
	waits      waitRecords // the waits of the current request
}

// startObservation tells the observers a call began, and makes the loop
// tell them how each attempt ended: CheckRetry learns whether another
// attempt follows, Backoff after how long.
func (c *Client) startObservation(req *http.Request, cl *call) *observation {
	o := &observation{call: cl, start: Event{
		Type:          EventCallStart,
		Operation:     cl.ep.operation,
		Route:         cl.ep.name(),
		Method:        req.Method,
		URL:           req.URL.Redacted(),
		ServerAddress: c.baseURL.Hostname(),
		ServerPort:    c.serverPort,
		Start:         time.Now(),
	}}
	o.ctx = o.notify(req.Context(), o.start)
	check, wait := cl.rc.CheckRetry, cl.rc.Backoff
	cl.rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		retry, checkErr := check(ctx, resp, err)
		o.judged(ctx, resp, err)
		if !retry {
			o.endAttempt(false, 0)
		}
		return retry, checkErr
	}
	cl.rc.Backoff = func(min, max time.Duration, n int, resp *http.Response) time.Duration {
		d := wait(min, max, n, resp)
		o.endAttempt(true, d)
		return d
	}
	return o
}

// notify tells every observer about e, each with the context the one
// before it returned, and returns the last one's.
func (o *observation) notify(ctx context.Context, e Event) context.Context {
	for _, obs := range o.call.client.observers {
		ctx = observeSafely(obs, ctx, e)
	}
	return ctx
}

// observeSafely keeps ctx when an observer panics or returns nil.
func observeSafely(obs Observer, ctx context.Context, e Event) (out context.Context) {
	defer func() {
		if recover() != nil {
			out = ctx
		}
	}()
	return cmp.Or(obs.Observe(ctx, e), ctx)
}

// startHop tells the observers an attempt started, at its first request
// (not a redirect's), and returns req with the headers they asked for and
// the records the limiter's waits go to.
func (o *observation) startHop(req *http.Request, first bool, attempt int) (*http.Request, *waitRecords) {
	if first {
		o.attempt = o.start
		o.attempt.Type, o.attempt.Attempt, o.attempt.Start = EventAttemptStart, attempt, time.Now()
		o.attempt.Header = http.Header{}
		o.attemptCtx = o.notify(o.ctx, o.attempt)
	}
	o.waits = o.waits[:0]
	if len(o.attempt.Header) == 0 {
		return req, &o.waits
	}
	out := req.Clone(req.Context())
	for k, v := range o.attempt.Header {
		if !reserved(k) {
			out.Header[k] = v
		}
	}
	return out, &o.waits
}

// tellWaits tells the observers of each wait of the current request.
func (o *observation) tellWaits() {
	for _, w := range o.waits {
		e := o.attempt
		e.Type, e.Start, e.Duration, e.Level, e.Header = EventLimiterWait, w.start, w.d, w.level, nil
		e.Err, e.ErrorType = w.err, ErrorType(w.err)
		o.notify(o.attemptCtx, e)
	}
}

// reserved reports a header an observer cannot set.
func reserved(name string) bool {
	return slices.Contains([]string{"Authorization", "Content-Type", "Accept", "User-Agent", "Host", "Content-Length", "Cookie"},
		http.CanonicalHeaderKey(name))
}

// judged keeps what the open attempt ended with, for endAttempt.
func (o *observation) judged(ctx context.Context, resp *http.Response, err error) {
	e := o.attempt
	e.Type, e.Duration, e.Header = EventAttemptEnd, time.Since(e.Start), nil
	kind := kindOfAttempt(ctx, resp, err)
	if resp != nil {
		// Also beside an error: a redirect the caller's CheckRedirect refused.
		e.StatusCode, e.RequestID = resp.StatusCode, answerOf(resp).rate.requestID
	}
	switch {
	case err == nil:
	case kind == nil:
		e.Err = ctx.Err() // an attempt of no kind ended with the caller's context
	default:
		e.Err = o.call.client.cleanCause(err) // it may quote a hostile server
	}
	if e.ErrorType = ErrorType(e.Err); kind != nil {
		e.ErrorType = ErrorType(kind)
	}
	o.ended = e
}

// endAttempt tells the observers how the open attempt ended, if one is.
func (o *observation) endAttempt(retry bool, wait time.Duration) {
	if o.attempt.Attempt == 0 {
		return
	}
	e := o.ended
	e.Retry, e.RetryWait = retry, wait
	o.attempt.Attempt = 0
	o.notify(o.attemptCtx, e)
}

// end tells the observers the call ended, after the open attempt.
func (o *observation) end(resp *Response, err error) {
	o.endAttempt(false, 0)
	e := o.start
	e.Type, e.Attempt, e.Duration = EventCallEnd, o.call.attempts, time.Since(e.Start)
	if resp != nil {
		e.StatusCode, e.RequestID = resp.StatusCode, resp.RequestID
	}
	e.Err, e.ErrorType = err, ErrorType(err)
	o.notify(o.ctx, e)
}

// slogObserver logs each attempt at Debug; at Warn a retry or a wait for
// the rate limit of over a second, which may look like a hang, and a
// limiter that failed; never a header, a body or the key.
type slogObserver struct{ logger *slog.Logger }

func (s slogObserver) Observe(ctx context.Context, e Event) context.Context {
	switch {
	case e.Type == EventAttemptEnd:
		attrs := []slog.Attr{slog.String("method", e.Method), slog.String("path", pathOf(e.URL)),
			slog.Int("attempt", e.Attempt), slog.Duration("duration", e.Duration)}
		if e.StatusCode != 0 {
			attrs = append(attrs, slog.Int("status", e.StatusCode))
		}
		if e.RequestID != "" {
			attrs = append(attrs, slog.String("request_id", e.RequestID))
		}
		if e.Err != nil {
			attrs = append(attrs, slog.String("error", e.Err.Error()))
		}
		if e.Retry {
			attrs = append(attrs, slog.Duration("wait", e.RetryWait))
		}
		s.logger.LogAttrs(ctx, slog.LevelDebug, "seoapi: attempt", attrs...)
		if e.Retry && e.RetryWait > time.Second {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "seoapi: retrying after a long wait", attrs...)
		}
	case e.Type == EventLimiterWait && e.Err != nil && !errors.Is(e.Err, ErrRateLimited):
		// A limiter that failed (Redis down or hung) sent nothing: say why.
		s.logger.LogAttrs(ctx, slog.LevelWarn, "seoapi: rate limiter wait failed",
			slog.String("method", e.Method), slog.String("path", pathOf(e.URL)),
			slog.String("level", string(e.Level)), slog.Duration("waited", e.Duration), slog.String("error", e.Err.Error()))
	case e.Type == EventLimiterWait && e.Duration > time.Second:
		s.logger.LogAttrs(ctx, slog.LevelWarn, "seoapi: throttled by rate limit",
			slog.String("method", e.Method), slog.String("path", pathOf(e.URL)),
			slog.String("level", string(e.Level)), slog.Duration("waited", e.Duration))
	}
	return ctx
}

// pathOf returns the path of a URL, without its query, which may hold IDs.
func pathOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Path
	}
	return ""
}
