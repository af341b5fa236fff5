package seoapi

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
)

// apiError is the *APIError of the call's result r, naming the URL the
// caller asked for; an answer's body was cleaned by call.answered.
func (cl *call) apiError(r *result) *APIError {
	e := &APIError{RetryAfter: cmp.Or(r.refusedWait, r.rate.wait)}
	if r.refusal != nil {
		// A copy: a Limiter may give the same refusal to every call.
		*e = *r.refusal
		e.refusal = r.refusal
	}
	e.kind = r.kind
	// A write that may have left, or got a 5xx, may have taken effect.
	e.outcomeUnknown = !cl.idem && r.mayHaveTakenEffect()
	e.Method, e.URL, e.Attempts = cl.req.Method, cl.req.URL.Redacted(), cl.attempts
	if r.resp != nil {
		e.StatusCode, e.Header, e.RequestID = r.resp.StatusCode, r.resp.Header, r.rate.requestID
		if !r.withhold {
			e.Body = r.redact.errorBody(r.data)
		}
	}
	return e
}

// capErrorBody returns at most maxErrorBody bytes of body, copied when cut
// so that the error does not keep a large body alive.
func capErrorBody(body []byte) []byte {
	if len(body) <= maxErrorBody {
		return body
	}
	return bytes.Clone(body[:maxErrorBody])
}

// statusError is the error of an answer whose status is not 2xx.
func (cl *call) statusError(r *result) error {
	e := cl.apiError(r)
	e.Message, e.Code = parseErrorBody(e.Body)
	if r.status >= 300 && r.status <= 399 {
		e.Message = "redirect not followed"
		if loc := e.Header.Get("Location"); loc != "" {
			e.Message += " (Location: " + loc + ")"
		}
	}
	return e
}

// decodeError is the error of a 2xx body the SDK could not read.
func (cl *call) decodeError(r *result, err error) error {
	e := cl.apiError(r)
	// A decoding error may quote what it failed on.
	e.Err, e.kind = cl.client.cleanCause(err), ErrUnexpectedResponse
	switch {
	case cl.ep.secret:
		// The body of a created key may hold its secret anywhere, and the
		// decoding error may quote it: neither goes into the error.
		e.Body, e.Err = nil, errors.New("the answer could not be read")
		e.Message = fmt.Sprintf("decoding the %d response: %v (body withheld: it may hold a created secret)", r.status, e.Err)
	case errors.Is(e.Err, errBodyTooLarge):
		e.Message = fmt.Sprintf("%d response: %v", r.status, e.Err)
	default:
		e.Message = fmt.Sprintf("decoding the %d response: %v (body: %q)", r.status, e.Err, snippet(e.Body))
	}
	return e
}

// failure is the error of a call that ended without an answer to use. It
// says what this call did: when the caller's context ended, the error is
// the context's own, whatever cause the context carries.
func (cl *call) failure(ctx context.Context, r *result) error {
	e := cl.apiError(r)
	var lim *limiterError
	switch {
	case r.refusal != nil:
		// The limiter's refusal says what happened.
	case r.kind == nil:
		e.Err = cmp.Or(ctx.Err(), r.err)
	case errors.As(r.err, &lim):
		e.Message = "not sent: the rate limiter failed"
		e.Err = causeError{cl.client.cleanCause(lim.err)}
	default:
		e.Err = causeError{cl.client.cleanCause(r.err)}
	}
	return e
}

// cleanCause strips the *url.Error around err, as the APIError names the
// method and URL, and any form of the key a server sent back, which
// net/http may quote in a malformed-response error.
func (c *Client) cleanCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if msg := err.Error(); c.redact.string(msg) != msg {
		return errors.New(c.redact.string(msg))
	}
	return err
}

// causeError holds the cause of a failure whose kind the SDK chose.
// errors.Is and errors.As reach into it, but not for the kinds or the
// context errors: the *APIError around it has one kind, and an attempt or
// a limiter's store that timed out is not the caller's context ending.
type causeError struct{ err error }

func (e causeError) Error() string      { return e.err.Error() }
func (e causeError) As(target any) bool { return errors.As(e.err, target) }

func (e causeError) Is(target error) bool {
	_, isKind := target.(*kindError)
	hidden := isKind || target == ErrOutcomeUnknown || target == context.DeadlineExceeded || target == context.Canceled
	return !hidden && errors.Is(e.err, target)
}
