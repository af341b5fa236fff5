package seoapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// responseError is the *APIError of an answer the call fails on, with its
// body (none when withhold is set, or the answer's must be withheld)
// cleaned by the answer's redactor (see call.answered).
// It names the URL the caller asked for, not a redirect's.
func (cl *call) responseError(r *result, withhold bool) *APIError {
	var body []byte
	if !r.withhold && !withhold {
		body = r.redact.errorBody(r.data)
	}
	e := &APIError{
		StatusCode: r.resp.StatusCode,
		Method:     cl.req.Method,
		URL:        cl.req.URL.Redacted(),
		RequestID:  r.rate.requestID,
		Body:       body,
		Header:     r.resp.Header,
		Attempts:   cl.attempts,
		kind:       r.kind,
		// A write answered with a 5xx may still have taken effect.
		outcomeUnknown: !cl.idem && serverError(r.resp.StatusCode),
	}
	if r.rate.asked {
		e.RetryAfter = r.rate.wait
	}
	if r.refusedWait > 0 {
		e.RetryAfter = r.refusedWait
	}
	return e
}

// capErrorBody returns at most maxErrorBody bytes of body, copied when
// cut so that the error does not keep a large body alive.
func capErrorBody(body []byte) []byte {
	if len(body) <= maxErrorBody {
		return body
	}
	return bytes.Clone(body[:maxErrorBody])
}

// statusError is the error of an answer whose status is not 2xx.
func (cl *call) statusError(r *result) error {
	e := cl.responseError(r, false)
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
	// A decoding error may quote what it failed on.
	err = cl.client.cleanCause(err)
	withhold := cl.ep.secret
	if withhold {
		// The answer of a created key that cannot be read may hold its
		// secret anywhere: none of it, nor what a decoder quoted of it,
		// goes into the error.
		err = errSecretWithheld
	}
	e := cl.responseError(r, withhold)
	e.Message = decodeMessage(r.status, err, e.Body, withhold)
	e.Err, e.kind = err, ErrUnexpectedResponse
	return e
}

// emptyAnswerError is the error of a 2xx answer to ep that holds no
// resource, such as a 204: the request took effect (it is not
// ErrOutcomeUnknown), but its result cannot be read.
func emptyAnswerError(req *http.Request, ep *endpoint, resp *Response) error {
	return unexpectedAnswer(req, resp, fmt.Sprintf("%s: the server answered %d without the resource; the request took effect", ep.operation, resp.StatusCode))
}

// errSecretWithheld stands for the decoding error of an answer that may
// hold a created secret.
var errSecretWithheld = errors.New("the answer could not be read")

func decodeMessage(status int, err error, body []byte, withheld bool) string {
	if withheld {
		return fmt.Sprintf("decoding the %d response: %v (body withheld: it may hold a created secret)", status, err)
	}
	if errors.Is(err, errBodyTooLarge) {
		return fmt.Sprintf("%d response: %v", status, err)
	}
	return fmt.Sprintf("decoding the %d response: %v (body: %q)", status, err, snippet(body))
}

// failure is the error of a call that ended without an answer to use.
// Its kind and whether a write may have taken effect come from what this
// call did; when the caller's context ended, the error is the context's
// own, whatever cause the context carries.
func (cl *call) failure(ctx context.Context, r *result) error {
	if r.refusal != nil {
		r.refusal.Method, r.refusal.URL, r.refusal.Attempts = cl.req.Method, cl.req.URL.Redacted(), cl.attempts
		return r.refusal
	}
	e := &APIError{
		Method:         cl.req.Method,
		URL:            cl.req.URL.Redacted(),
		Attempts:       cl.attempts,
		RetryAfter:     r.refusedWait,
		kind:           r.kind,
		outcomeUnknown: !cl.idem && r.mayHaveLeft,
	}
	var lim *limiterError
	switch {
	case r.kind == nil:
		e.Err = ctx.Err()
		if e.Err == nil {
			e.Err = r.err
		}
	case errors.As(r.err, &lim):
		e.Message = "not sent: the rate limiter failed"
		e.Err = causeError{cl.client.cleanCause(lim.err)}
	default:
		e.Err = causeError{cl.client.cleanCause(r.err)}
	}
	return e
}

// cleanCause strips the *url.Error around err (the APIError already names
// the method and URL) and any form of the key a server sent back, which
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

// causeError holds the cause of a failure whose kind the SDK chose (a
// connection that failed, a limiter that failed). errors.As reaches into
// it, and errors.Is too, except for the kinds and the context errors:
// the *APIError around it matches exactly its one kind, and an attempt
// that timed out, or a limiter's own store timing out, is not the
// caller's context ending.
type causeError struct{ err error }

func (e causeError) Error() string { return e.err.Error() }

// Is reports whether the cause matches target, unless target is a kind or
// a context error.
func (e causeError) Is(target error) bool {
	if isKind(target) || target == ErrOutcomeUnknown || target == context.DeadlineExceeded || target == context.Canceled {
		return false
	}
	return errors.Is(e.err, target)
}

// As finds the first error in the cause's chain that matches target.
func (e causeError) As(target any) bool { return errors.As(e.err, target) }
