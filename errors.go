package seoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The kinds of failure a call can end in. Test for them with errors.Is; an
// *APIError matches exactly one of them. Each lists every status that maps
// to it (a test holds these lists to the mapping).
var (
	// ErrInvalidArgument: the SDK rejected an argument before sending
	// anything; the *Response is nil.
	ErrInvalidArgument = errors.New("seoapi: invalid argument")
	// ErrUnauthorized: 401 or 407: the key is missing, wrong or revoked.
	ErrUnauthorized = errors.New("seoapi: unauthorized")
	// ErrForbidden: 403 or 451, including a workspace whose plan has no
	// API access.
	ErrForbidden = errors.New("seoapi: forbidden")
	// ErrNotFound: 404 or 410.
	ErrNotFound = errors.New("seoapi: not found")
	// ErrConflict: 409, 412, 423 or 424.
	ErrConflict = errors.New("seoapi: conflict")
	// ErrValidation: 400, 413, 414, 422 or 431: the server rejected the
	// request's content.
	ErrValidation = errors.New("seoapi: validation failed")
	// ErrRateLimited: 429, or a wait for the SDK's own limiter or the
	// server's hold that the SDK refused because it was longer than
	// WithMaxWait or the context's deadline (then nothing was sent, and
	// RetryAfter is the wait refused).
	ErrRateLimited = errors.New("seoapi: rate limited")
	// ErrServer: 408, 425 or any 5xx. When the server asked for a wait
	// (Retry-After) the SDK refused, RetryAfter holds it.
	ErrServer = errors.New("seoapi: server error")
	// ErrConnection: no usable response: the connection was refused, reset
	// or cut mid-body, TLS failed, or an attempt timed out.
	ErrConnection = errors.New("seoapi: connection failed")
	// ErrUnexpectedResponse: a 2xx the SDK cannot read (malformed, over a
	// size cap, or without the resource a method returns), or any status no
	// other kind lists: a redirect not followed, 1xx, 402, 405, 406, 411,
	// 415, 416, 417, 421, 426, 428, ...
	ErrUnexpectedResponse = errors.New("seoapi: unexpected response")
	// ErrOutcomeUnknown is matched, besides its kind, by the error of a
	// POST or PATCH that may have reached the server: it was cut or timed
	// out after the request may have left, its context ended after it
	// may have left, or the server answered it with a 5xx (its kind stays
	// ErrServer). The write may have taken effect; look before repeating
	// it.
	ErrOutcomeUnknown = errors.New("seoapi: outcome unknown")
)

// ErrorType names the kind of err in a short, stable word for logs and
// metrics: "invalid_argument", "unauthorized", "forbidden", "not_found",
// "conflict", "validation", "rate_limited", "server", "connection",
// "unexpected_response", "canceled" or "deadline_exceeded"; "other" for an
// error that is none of them, and "" for nil.
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	for _, k := range kinds() {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	}
	return "other"
}

// maxErrorBody caps APIError.Body.
const maxErrorBody = 64 << 10

// maxSnippet caps the text of a plain-text or HTML body used as a message.
const maxSnippet = 200

// APIError is the error of every call that failed after it was built:
// a non-2xx response, a 2xx the SDK could not read, a connection that gave
// no usable response, or a request the SDK held back because the rate
// limit would have made it wait too long. It matches exactly one of the
// Err kinds with errors.Is (or, when the call's context ended, the
// context's own error), and ErrOutcomeUnknown too when a write may have
// taken effect. StatusCode is 0 when no response was used.
type APIError struct {
	StatusCode int
	Method     string
	URL        string
	Code       string        // machine-readable code, when the body has one
	Message    string        // the server's message, a snippet of a non-JSON body, or what went wrong
	RequestID  string        // from X-Request-Id or Request-Id
	RetryAfter time.Duration // from Retry-After or a rate-limit reset, when present
	Body       []byte        // the raw body, capped at 64 KiB
	Header     http.Header
	Attempts   int   // how many attempts the call made
	Err        error // the underlying error, such as a *net.OpError, when there is one

	kind           error // set when the kind does not follow from StatusCode
	outcomeUnknown bool  // a write may have reached the server
}

// Error describes the failure in one line: method, URL, status, code and
// message. It never holds the API key.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("seoapi: ")
	if e.Method != "" {
		b.WriteString(e.Method + " " + e.URL + ": ")
	}
	switch {
	case e.StatusCode != 0:
		fmt.Fprintf(&b, "%d %s", e.StatusCode, http.StatusText(e.StatusCode))
	case e.Err != nil:
		b.WriteString("no usable response")
	default:
		b.WriteString("not sent")
	}
	if e.Code != "" {
		b.WriteString(" [" + e.Code + "]")
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Err != nil && e.StatusCode == 0 {
		b.WriteString(": " + e.Err.Error())
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter.Round(time.Millisecond))
	}
	if e.outcomeUnknown {
		b.WriteString(" (the request may have taken effect)")
	}
	return b.String()
}

// Is reports whether target is the kind of this error, so that
// errors.Is(err, ErrNotFound) works, or ErrOutcomeUnknown when a write may
// have reached the server.
func (e *APIError) Is(target error) bool {
	if target == nil {
		return false
	}
	if target == ErrOutcomeUnknown {
		return e.outcomeUnknown
	}
	return target == e.Kind()
}

// Unwrap returns the underlying error, so that errors.As reaches a
// *net.OpError and errors.Is a context's error.
func (e *APIError) Unwrap() error { return e.Err }

// Kind returns the one Err kind the error matches, or nil when it is a
// context's error (see Unwrap). The SDK sets the kind of every error it
// builds; for an APIError built elsewhere it follows from StatusCode.
func (e *APIError) Kind() error {
	if e.kind != nil {
		return e.kind
	}
	if e.StatusCode == 0 {
		return nil
	}
	return kindOfStatus(e.StatusCode)
}

// kindOfStatus maps every status to one kind; the kinds' doc comments list
// them, held to this mapping by TestKindDocsListTheirStatuses.
func kindOfStatus(status int) error {
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong,
		http.StatusUnprocessableEntity, http.StatusRequestHeaderFieldsTooLarge:
		return ErrValidation
	case http.StatusUnauthorized, http.StatusProxyAuthRequired:
		return ErrUnauthorized
	case http.StatusForbidden, http.StatusUnavailableForLegalReasons:
		return ErrForbidden
	case http.StatusNotFound, http.StatusGone:
		return ErrNotFound
	case http.StatusConflict, http.StatusPreconditionFailed, http.StatusLocked, http.StatusFailedDependency:
		return ErrConflict
	case http.StatusTooManyRequests:
		return ErrRateLimited
	case http.StatusRequestTimeout, http.StatusTooEarly:
		return ErrServer
	}
	if status >= 500 && status <= 599 {
		return ErrServer
	}
	return ErrUnexpectedResponse
}

// kind is an Err kind and the word ErrorType names it by.
type kind struct {
	err  error
	name string
}

// kinds lists the Err kinds, in the order ErrorType tries them.
func kinds() []kind {
	return []kind{
		{ErrInvalidArgument, "invalid_argument"}, {ErrUnauthorized, "unauthorized"},
		{ErrForbidden, "forbidden"}, {ErrNotFound, "not_found"}, {ErrConflict, "conflict"},
		{ErrValidation, "validation"}, {ErrRateLimited, "rate_limited"}, {ErrServer, "server"},
		{ErrConnection, "connection"}, {ErrUnexpectedResponse, "unexpected_response"},
	}
}

// kindOf returns the first kind in the tree of a limiter's failure (depth
// first, in order), or ErrConnection: a failure that names no kind left
// the call without a usable response.
func kindOf(err error) error {
	if kind := firstKind(err); kind != nil {
		return kind
	}
	return ErrConnection
}

func firstKind(err error) error {
	if err == nil || isKind(err) {
		return err
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return firstKind(u.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if kind := firstKind(e); kind != nil {
				return kind
			}
		}
	}
	return nil
}

// isKind reports whether err is one of the Err kinds itself.
func isKind(err error) bool {
	return slices.ContainsFunc(kinds(), func(k kind) bool { return k.err == err })
}

// invalidArgument returns an error matching ErrInvalidArgument.
func invalidArgument(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
}
