package seoapi

import (
	"context"
	"net/http"
	"time"
)

// Observer is told what every call of a Client does: its start and end,
// each attempt, and each wait for the rate limit. Give observers with
// WithObserver; WithLogger adds one that writes slog records. An Observer
// must be safe for concurrent use. A panic in Observe is recovered and the
// call goes on.
//
// Observe returns the context the SDK goes on with: an observer that
// starts a span at EventCallStart or EventAttemptStart returns a context
// holding it, and receives that context with the events that follow
// (EventLimiterWait and EventAttemptEnd for an attempt, EventCallEnd for a
// call). Events never carry the API key, a body or a header of the
// request or response.
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
	WaitServer    WaitLevel = "server"     // the server's word: Remaining 0 until a reset
	WaitLimiter   WaitLevel = "limiter"    // a Limiter given with WithLimiter, such as a fleet limiter
)

// Event is one thing a call did. Which fields are set depends on Type.
type Event struct {
	Type EventType

	// Operation names the SDK method, such as "Projects.List"; a request
	// sent with Client.Do that matches no endpoint is "Client.Do".
	Operation string
	// Route is the method and path template, such as
	// "GET /api/workspaces/{workspaceID}/projects": it holds no ID, so it
	// suits span names and metric labels. A request that matches no
	// endpoint has the route "GET /{other}".
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
	// events; at EventCallEnd, how many attempts the call made.
	Attempt int
	// Start is when the call, the attempt or the wait began.
	Start time.Time
	// Duration is how long the call, the attempt or the wait took, for
	// EventLimiterWait, EventAttemptEnd and EventCallEnd.
	Duration time.Duration

	// StatusCode is the response's status at EventAttemptEnd and
	// EventCallEnd; 0 when there was no response.
	StatusCode int
	// Err is the error the attempt or the call ended with, if any.
	Err error
	// ErrorType names Err's kind for aggregation, such as "not_found" or
	// "connection" (see ErrorType); empty on success.
	ErrorType string
	// Retry is set at EventAttemptEnd when another attempt follows, after
	// RetryWait.
	Retry     bool
	RetryWait time.Duration

	// Level is the limit that held the request back, at EventLimiterWait.
	Level WaitLevel

	// Header, at EventAttemptStart only, takes headers the observer wants
	// sent with the attempt, such as W3C trace context. Authorization,
	// Content-Type, Accept and User-Agent cannot be set through it.
	Header http.Header
}

// WithObserver adds o to the observers told about every call (see
// Observer). Several can be given; each is told in the order given.
func WithObserver(o Observer) Option {
	return func(cfg *clientConfig) {
		if o == nil {
			cfg.reject("WithObserver: nil Observer")
			return
		}
		cfg.observers = append(cfg.observers, o)
	}
}
