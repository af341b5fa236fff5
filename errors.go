package seoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The kinds of failure: every error of a call matches exactly one of them
// with errors.Is, or is its context's error (see the README's table).
var (
	// ErrInvalidArgument means the SDK rejected an argument and sent nothing.
	ErrInvalidArgument = newKind("invalid_argument", "seoapi: invalid argument")
	// ErrUnauthorized is a 401 or 407: the key is missing, wrong or revoked.
	ErrUnauthorized = newKind("unauthorized", "seoapi: unauthorized")
	// ErrForbidden is a 403 or 451, such as a plan without API access.
	ErrForbidden = newKind("forbidden", "seoapi: forbidden")
	// ErrNotFound is a 404 or 410.
	ErrNotFound = newKind("not_found", "seoapi: not found")
	// ErrConflict is a 409, 412, 423 or 424.
	ErrConflict = newKind("conflict", "seoapi: conflict")
	// ErrValidation is a 400, 413, 414, 422 or 431: the request's content was refused.
	ErrValidation = newKind("validation", "seoapi: validation failed")
	// ErrRateLimited is a 429, or a wait for the rate limit longer than
	// WithMaxWait or the context's deadline, refused with nothing sent.
	ErrRateLimited = newKind("rate_limited", "seoapi: rate limited")
	// ErrServer is a 408, 425 or any 5xx.
	ErrServer = newKind("server", "seoapi: server error")
	// ErrConnection means no usable response arrived: the connection was
	// refused, reset or cut, TLS failed, or an attempt timed out.
	ErrConnection = newKind("connection", "seoapi: connection failed")
	// ErrUnexpectedResponse is a 2xx the SDK cannot read, a redirect not
	// followed, or a status no other kind names (1xx, 402, 405, ...).
	ErrUnexpectedResponse = newKind("unexpected_response", "seoapi: unexpected response")
	// ErrOutcomeUnknown is also matched by the error of a POST or PATCH
	// that may have taken effect: cut, timed out or canceled after it may
	// have reached the server, or answered with a 5xx. Look before
	// repeating it.
	ErrOutcomeUnknown = errors.New("seoapi: outcome unknown")
)

// kindError is the type of the Err kinds, so that errors.As finds the first
// kind in an error's tree; name is ErrorType's word for it.
type kindError struct{ name, msg string }

func newKind(name, msg string) error { return &kindError{name, msg} }

func (e *kindError) Error() string { return e.msg }

// ErrorType names err's kind in one stable word for logs and metrics, such
// as "not_found" or "canceled": "other" for no kind, "" for nil.
func ErrorType(err error) string {
	for _, k := range [...]error{ErrInvalidArgument, ErrUnauthorized, ErrForbidden, ErrNotFound, ErrConflict,
		ErrValidation, ErrRateLimited, ErrServer, ErrConnection, ErrUnexpectedResponse} {
		if errors.Is(err, k) {
			return k.(*kindError).name
		}
	}
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline_exceeded"
	}
	return "other"
}

// kindOfStatus is the one place a status that is not 2xx gets its kind.
func kindOfStatus(status int) error {
	switch status {
	case 401, 407:
		return ErrUnauthorized
	case 403, 451:
		return ErrForbidden
	case 404, 410:
		return ErrNotFound
	case 409, 412, 423, 424:
		return ErrConflict
	case 400, 413, 414, 422, 431:
		return ErrValidation
	case 429:
		return ErrRateLimited
	}
	if status == 408 || status == 425 || status/100 == 5 {
		return ErrServer
	}
	return ErrUnexpectedResponse
}

func invalidArgument(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))
}

const (
	maxErrorBody = 64 << 10 // caps APIError.Body
	maxSnippet   = 200      // caps the runes of a non-JSON body used as a message
)

// APIError is the error of a call that failed after it was built. It
// matches exactly one kind, and ErrOutcomeUnknown when a write may have
// taken effect (see docs/errors.md). StatusCode is 0 without a response.
type APIError struct {
	StatusCode int
	Method     string
	URL        string
	Code       string        // machine-readable code, when the body has one
	Message    string        // the server's message, a snippet of a non-JSON body, or what went wrong
	RequestID  string        // from X-Request-Id or Request-Id
	RetryAfter time.Duration // the wait the server asked for, or the one the SDK refused
	Body       []byte        // the raw body, capped at 64 KiB
	Header     http.Header
	Attempts   int   // how many attempts the call made
	Err        error // the underlying error, such as a *net.OpError, when there is one

	kind           error     // set when the kind does not follow from StatusCode
	outcomeUnknown bool      // a write may have reached the server
	notSent        bool      // the call sent nothing: its wait for the limiter failed or was cut short
	refusal        *APIError // the Limiter's own refusal, which this error reports
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
	case e.Err != nil && !e.notSent:
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

// Is reports whether target is the error's kind, ErrOutcomeUnknown when a
// write may have taken effect, or the Limiter's refusal the error reports.
func (e *APIError) Is(target error) bool {
	if target == ErrOutcomeUnknown {
		return e.outcomeUnknown
	}
	isRefusal := e.refusal != nil && target == error(e.refusal)
	return isRefusal || target != nil && target == e.Kind()
}

// Unwrap returns the underlying error.
func (e *APIError) Unwrap() error { return e.Err }

// Kind returns the one Err kind the error matches, or nil for a context's
// error. An APIError built outside the SDK has the kind of its StatusCode.
func (e *APIError) Kind() error {
	if e.kind != nil || e.StatusCode == 0 {
		return e.kind
	}
	return kindOfStatus(e.StatusCode)
}

// kindOfAttempt is the one kind of an attempt that ended with resp or err:
// nil for a 2xx, and for an attempt the caller's context ended, whatever
// its cause says.
func kindOfAttempt(ctx context.Context, resp *http.Response, err error) error {
	var lim *limiterError
	var k *kindError
	switch {
	case err == nil && resp.StatusCode/100 == 2:
		return nil
	case err == nil:
		return kindOfStatus(resp.StatusCode)
	case ctx.Err() != nil && !errors.Is(err, errAttemptTimeout):
		return nil
	case errors.As(err, &lim) && refusal(lim) != nil:
		return ErrRateLimited
	case lim != nil && errors.As(lim.err, &k): // another failure of the limiter keeps its kind
		return k
	case errors.As(err, new(*redirectError)):
		return ErrUnexpectedResponse
	}
	return ErrConnection
}

// refusal is the limiter's refusal to wait, when that is its error.
func refusal(lim *limiterError) *APIError {
	var e *APIError
	if errors.As(lim.err, &e) && e.StatusCode == 0 {
		return e
	}
	return nil
}

// apiError is an *APIError of the call, naming the URL the caller asked
// for; of the answer resp, when there is one.
func (cl *call) apiError(resp *http.Response) *APIError {
	e := &APIError{Method: cl.req.Method, URL: cl.req.URL.Redacted(), Attempts: cl.attempts}
	if resp != nil {
		a := answerOf(resp)
		e.StatusCode, e.Header, e.RequestID, e.RetryAfter = resp.StatusCode, resp.Header, a.rate.requestID, a.rate.wait
		e.outcomeUnknown = !cl.policy.idempotent && resp.StatusCode/100 == 5
		if !a.withhold {
			e.Body = a.redact.errorBody(a.data)
		}
	}
	return e
}

// statusError is the error of an answer whose status is not 2xx.
func (cl *call) statusError(resp *http.Response) error {
	e := cl.apiError(resp)
	e.Message, e.Code = parseErrorBody(e.Body)
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		e.Message = "redirect not followed"
		if loc := e.Header.Get("Location"); loc != "" {
			e.Message += " (Location: " + loc + ")"
		}
	}
	return e
}

// decodeError is the error of a 2xx body the SDK could not read.
func (cl *call) decodeError(resp *http.Response, err error) error {
	e := cl.apiError(resp)
	e.Err, e.kind = cl.client.cleanCause(err), ErrUnexpectedResponse // it may quote what it failed on
	switch {
	case cl.ep.secret:
		// A created key's body, and an error quoting it, may hold its secret.
		e.Body, e.Err = nil, errors.New("the answer could not be read")
		e.Message = fmt.Sprintf("decoding the %d response: %v (body withheld: it may hold a created secret)", e.StatusCode, e.Err)
	case errors.Is(e.Err, errBodyTooLarge):
		e.Message = fmt.Sprintf("%d response: %v", e.StatusCode, e.Err)
	default:
		e.Message = fmt.Sprintf("decoding the %d response: %v (body: %q)", e.StatusCode, e.Err, snippet(e.Body))
	}
	return e
}

// failure is the error of a call whose last attempt got no answer to use.
// When the caller's context ended, it is the context's own error, whatever
// its cause. A write that may have reached the server is ErrOutcomeUnknown.
func (cl *call) failure(ctx context.Context, err error) error {
	e := cl.apiError(nil)
	e.kind = kindOfAttempt(ctx, nil, err)
	var lim *limiterError
	var ce *connError
	e.outcomeUnknown = !cl.policy.idempotent && errors.As(err, &ce) && ce.reached
	e.notSent = errors.As(err, &lim) && cl.attempts == 0
	switch {
	case e.kind == nil:
		e.Err = ctx.Err()
	case errors.As(err, &lim) && refusal(lim) != nil:
		// The refusal says what happened: a copy, as a Limiter may give one
		// refusal to every call.
		r := refusal(lim)
		*e = *r
		e.Method, e.URL, e.Attempts, e.refusal, e.kind = cl.req.Method, cl.req.URL.Redacted(), cl.attempts, r, ErrRateLimited
	case lim != nil:
		e.Message = "the rate limiter failed"
		e.Err = causeError{cl.client.cleanCause(lim.err)}
	default:
		e.Err = causeError{cl.client.cleanCause(err)}
	}
	return e
}

// cleanCause strips err of its *url.Error (the APIError names the method and
// URL) and of any form of the key, which net/http may quote from a server.
func (c *Client) cleanCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if msg := c.redact.string(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}

// causeError holds the cause of a failure whose kind the SDK chose: errors.Is
// and errors.As reach into it, except for the kinds and context errors (its
// *APIError has one kind; a timed-out attempt or store is not the caller's).
type causeError struct{ err error }

func (e causeError) Error() string      { return e.err.Error() }
func (e causeError) As(target any) bool { return errors.As(e.err, target) }

func (e causeError) Is(target error) bool {
	_, isKind := target.(*kindError)
	hidden := isKind || target == ErrOutcomeUnknown || target == context.DeadlineExceeded || target == context.Canceled
	return !hidden && errors.Is(e.err, target)
}
