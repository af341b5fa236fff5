package seoapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Observer is told what every call of a Client does: its start and end,
// each attempt, and each wait for the rate limit. Give observers with
// WithObserver; WithLogger adds one that writes slog records. An Observer
// must be safe for concurrent use. A panic in Observe is recovered and the
// call goes on.
//
// Observe returns the context the observers go on with: an observer that
// starts a span at EventCallStart or EventAttemptStart returns a context
// holding it, and receives that context with the events that follow
// (EventLimiterWait and EventAttemptEnd for an attempt, EventCallEnd for a
// call). The request itself keeps the caller's context, so no observer
// can change its deadline, its cancellation or its values; headers an
// observer wants sent go through Event.Header. Events never carry the API
// key; the only body or header they hold is that of the *APIError in Err,
// which is redacted.
type Observer interface {
	Observe(ctx context.Context, e Event) context.Context
}

// EventType says what an Event reports.
type EventType uint8

// The events of a call, in the order they happen. A call has one
// EventCallStart and one EventCallEnd; between them, each attempt has an
// EventAttemptStart, an EventLimiterWait when the rate limit held it back,
// and an EventAttemptEnd.
const (
	EventCallStart EventType = iota + 1
	EventAttemptStart
	EventLimiterWait
	EventAttemptEnd
	EventCallEnd
)

// String returns the event type's name, such as "call_start".
func (t EventType) String() string {
	switch t {
	case EventCallStart:
		return "call_start"
	case EventAttemptStart:
		return "attempt_start"
	case EventLimiterWait:
		return "limiter_wait"
	case EventAttemptEnd:
		return "attempt_end"
	case EventCallEnd:
		return "call_end"
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

// Event is one thing a call did. Which fields are set depends on Type.
type Event struct {
	Type EventType

	// Operation names the SDK method, such as "Projects.List"; a request
	// sent with Client.Do that matches no endpoint is "Client.Do".
	Operation string
	// Route is the method and path template, such as
	// "GET /api/workspaces/{id}/projects" (the placeholders are those of
	// the published spec: {id} and {projectId}): it holds no ID, so it
	// suits span names and metric labels. A request that matches no
	// endpoint has the route "METHOD /{path}".
	Route string
	// Method is the request's HTTP method.
	Method string
	// URL is the request URL as APIError.URL shows it (credentials
	// removed). It holds IDs: never use it as a metric label.
	URL string
	// ServerAddress and ServerPort are the host and port of the base URL.
	ServerAddress string
	ServerPort    int

	// Attempt is the attempt's number, from 1, for attempt and wait
	// events; at EventCallEnd, how many attempts the call sent (an
	// attempt that ended in the limiter's wait sent nothing).
	Attempt int
	// Start is when the call, the attempt or the wait began.
	Start time.Time
	// Duration is how long the call, the attempt or the wait took, for
	// EventLimiterWait (the time actually waited), EventAttemptEnd and
	// EventCallEnd.
	Duration time.Duration

	// StatusCode is the response's status at EventAttemptEnd and
	// EventCallEnd; 0 when there was no response.
	StatusCode int
	// Err is the error the attempt or the call ended with, if any; at
	// EventLimiterWait, the context's error when it cut the wait short.
	Err error
	// ErrorType names Err's kind for aggregation, such as "not_found" or
	// "connection" (see ErrorType); empty on success.
	ErrorType string
	// Retry is set at EventAttemptEnd when another attempt follows, after
	// RetryWait.
	Retry     bool
	RetryWait time.Duration

	// RequestID is the server's request ID (X-Request-Id or Request-Id)
	// at EventAttemptEnd and EventCallEnd, when the server sent one.
	RequestID string

	// Level is the limit that held the request back, at EventLimiterWait.
	Level WaitLevel

	// Header, at EventAttemptStart only, takes headers the observer wants
	// sent with the attempt, such as W3C trace context. Authorization,
	// Content-Type, Accept and User-Agent cannot be set through it.
	Header http.Header
}

// observation is what the observers of one call share across its
// events; a call of a client without observers has none.
type observation struct {
	call      *call // counts the attempts
	observers []Observer
	base      Event // Operation, Route, Method, URL, ServerAddress, ServerPort
	ctx       context.Context
	callStart time.Time

	attempt      int // the open attempt's number
	attemptOpen  bool
	attemptStart time.Time
	attemptCtx   context.Context
	header       http.Header
	waits        waitRecords
}

type observationKey struct{}

// startObservation tells the observers a call began and returns the
// request to send, whose context carries the observation to the
// transport.
func (c *Client) startObservation(req *http.Request, cl *call) (*observation, *http.Request) {
	o := &observation{call: cl, observers: c.observers, callStart: time.Now()}
	o.base = Event{
		Operation:     cl.ep.operation,
		Route:         cl.ep.name(),
		Method:        req.Method,
		URL:           cl.req.URL.Redacted(),
		ServerAddress: c.baseURL.Hostname(),
		ServerPort:    c.serverPort,
	}
	e := o.base
	e.Type, e.Start = EventCallStart, o.callStart
	o.ctx = o.notify(req.Context(), e)
	// The request keeps the caller's context; the observers' goes with
	// their events only.
	return o, req.WithContext(context.WithValue(req.Context(), observationKey{}, o))
}

func observationFrom(ctx context.Context) *observation {
	o, _ := ctx.Value(observationKey{}).(*observation)
	return o
}

// notify tells every observer about e, each with the context the one
// before it returned. A panicking observer is skipped.
func (o *observation) notify(ctx context.Context, e Event) context.Context {
	for _, obs := range o.observers {
		ctx = observeSafely(obs, ctx, e)
	}
	return ctx
}

func observeSafely(obs Observer, ctx context.Context, e Event) (out context.Context) {
	out = ctx
	defer func() {
		if recover() != nil {
			out = ctx
		}
	}()
	if next := obs.Observe(ctx, e); next != nil {
		out = next
	}
	return out
}

// beginAttempt tells the observers an attempt began (once per attempt,
// not for each redirect it follows) and returns req with the headers the
// observers asked for.
func (o *observation) beginAttempt(req *http.Request) *http.Request {
	if !o.attemptOpen {
		o.attempt = o.call.attempts + 1
		o.attemptOpen = true
		o.attemptStart = time.Now()
		o.header = http.Header{}
		e := o.base
		e.Type, e.Attempt, e.Start, e.Header = EventAttemptStart, o.attempt, o.attemptStart, o.header
		o.attemptCtx = o.notify(o.ctx, e)
	}
	if len(o.header) == 0 {
		return req
	}
	// The request keeps the caller's context: an observer's context is for
	// the observers alone.
	out := req.Clone(req.Context())
	for k, v := range o.header {
		if !reservedHeader(k) {
			out.Header[k] = v
		}
	}
	return out
}

func reservedHeader(key string) bool {
	switch http.CanonicalHeaderKey(key) {
	case "Authorization", "Content-Type", "Accept", "User-Agent", "Host", "Content-Length", "Cookie":
		return true
	}
	return false
}

// newWaits returns the record of the waits of an attempt, emptied.
func (o *observation) newWaits() *waitRecords {
	o.waits = waitRecords{}
	return &o.waits
}

// reportWaits tells the observers about each wait the limiter made.
func (o *observation) reportWaits(waits *waitRecords) {
	for _, w := range waits.all() {
		e := o.base
		e.Type, e.Attempt, e.Start, e.Duration, e.Level = EventLimiterWait, o.attempt, w.start, w.d, w.level
		e.Err, e.ErrorType = w.err, ErrorType(w.err)
		o.notify(o.attemptCtx, e)
	}
}

// endAttempt tells the observers how an attempt ended and whether another
// follows.
func (o *observation) endAttempt(r *result, ctxErr error) {
	if !o.attemptOpen {
		return
	}
	o.attemptOpen = false
	e := o.base
	e.Type, e.Attempt, e.Start, e.Duration = EventAttemptEnd, o.attempt, o.attemptStart, time.Since(o.attemptStart)
	e.StatusCode, e.RequestID = r.status, r.rate.requestID
	if r.err != nil {
		// An attempt's error may quote what a hostile server sent.
		e.Err = o.call.client.cleanCause(r.err)
	}
	switch {
	case r.kind != nil:
		e.ErrorType = ErrorType(r.kind)
	case r.err != nil:
		e.ErrorType = ErrorType(ctxErr)
	}
	e.Retry = r.retry
	if r.retry {
		e.RetryWait = r.wait
	}
	o.notify(o.attemptCtx, e)
}

// end tells the observers the call ended.
func (o *observation) end(resp *Response, err error, attempts int) {
	e := o.base
	e.Type, e.Attempt, e.Start, e.Duration = EventCallEnd, attempts, o.callStart, time.Since(o.callStart)
	if resp != nil {
		e.StatusCode, e.RequestID = resp.StatusCode, resp.RequestID
	}
	e.Err, e.ErrorType = err, ErrorType(err)
	o.notify(o.ctx, e)
}

// slogObserver writes the SDK's log records to a *slog.Logger: each
// attempt at Debug; a retry after a long wait and a long wait for the rate
// limit at Warn. Records hold the method, the path, the attempt, the
// status or error kind and the wait: never a header, a body or the key.
type slogObserver struct{ logger *slog.Logger }

// longWait is the wait after which the SDK warns: a caller may take it
// for a hang.
const longWait = time.Second

// Observe implements Observer.
func (s slogObserver) Observe(ctx context.Context, e Event) context.Context {
	switch e.Type {
	case EventAttemptEnd:
		attrs := []slog.Attr{
			slog.String("method", e.Method),
			slog.String("path", pathOf(e.URL)),
			slog.Int("attempt", e.Attempt),
			slog.Duration("duration", e.Duration),
		}
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
		if e.Retry && e.RetryWait > longWait {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "seoapi: retrying after a long wait", attrs...)
		}
	case EventLimiterWait:
		if e.Duration > longWait {
			s.logger.LogAttrs(ctx, slog.LevelWarn, "seoapi: throttled by rate limit",
				slog.String("method", e.Method), slog.String("path", pathOf(e.URL)),
				slog.String("level", string(e.Level)), slog.Duration("waited", e.Duration))
		}
	}
	return ctx
}

// pathOf returns the path of a URL string, without its query.
func pathOf(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil {
		return u.Path
	}
	return ""
}
