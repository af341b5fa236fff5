package seoapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// responseError is the *APIError of a response the call fails on, with
// the body the hop read (none when withhold is set) cleaned of any form of
// the key the server echoed and, for an endpoint that creates a secret, of
// every secret the body names (see errorRedactor). It names the URL the
// caller asked for, not a redirect's, which the server chose.
func (c *Client) responseError(call *callState, req *http.Request, resp *http.Response, a *answer, withhold bool) *APIError {
	r, clean := c.errorRedactor(call.ep, a.data)
	var body []byte
	if clean && !withhold {
		body = r.errorBody(a.data)
	}
	if call.ep.secret {
		// The Response handed out beside the error shows the same.
		resp.Header = r.header(resp.Header)
		a.requestID = r.string(a.requestID)
	}
	e := &APIError{
		StatusCode: resp.StatusCode,
		Method:     req.Method,
		URL:        redactedURL(req),
		RequestID:  a.requestID,
		Body:       body,
		Header:     resp.Header,
		Attempts:   call.attempts,
	}
	if d, ok := a.wait(c.now()); ok {
		e.RetryAfter = d
	}
	return e
}

// errorRedactor returns the redactor for an error of a call to ep whose
// answer is body, and whether the body can be shown cleaned. For an
// endpoint that creates a secret, a server may have created it and still
// failed the call: every secret-bearing member's value in the body is
// redacted wherever it appears (the headers and request ID included), and
// the body is withheld when it names more of them than the redactor
// takes, or one too short to redact safely.
func (c *Client) errorRedactor(ep *endpoint, body []byte) (r *redactor, clean bool) {
	if !ep.secret {
		return c.redact, true
	}
	return c.redact.withSecretsIn(body)
}

// capErrorBody returns at most maxErrorBody bytes of body, copied when
// cut so that the error does not keep a large body alive.
func capErrorBody(body []byte) []byte {
	if len(body) <= maxErrorBody {
		return body
	}
	return bytes.Clone(body[:maxErrorBody])
}

// statusError is the error of a response whose status is not 2xx.
func (c *Client) statusError(call *callState, req *http.Request, o *outcome) error {
	e := c.responseError(call, req, o.resp, o.answer, false)
	// Parsed from the cleaned body: unescaping cannot bring a secret back,
	// for the redactor matches every escaped form.
	e.Message, e.Code = parseErrorBody(e.Body)
	if o.refusedWait > 0 {
		// The server asked for a wait the caller does not accept.
		e.RetryAfter = o.refusedWait
	}
	if o.resp.StatusCode >= 300 && o.resp.StatusCode <= 399 {
		e.Message = "redirect not followed"
		if loc := e.Header.Get("Location"); loc != "" {
			e.Message += " (Location: " + loc + ")"
		}
	}
	return e
}

// decodeError is the error of a 2xx body the SDK could not read.
func (c *Client) decodeError(call *callState, req *http.Request, o *outcome, err error) error {
	// A decoding error may quote what it failed on.
	err = c.cleanCause(err)
	withhold := call.ep.secret
	if withhold {
		// The answer of a created key that cannot be read may hold its
		// secret anywhere: none of it, nor what a decoder quoted of it,
		// goes into the error.
		err = errSecretWithheld
	}
	e := c.responseError(call, req, o.resp, o.answer, withhold)
	e.Message = decodeMessage(o.resp.StatusCode, err, e.Body, withhold)
	e.Err, e.kind = err, ErrUnexpectedResponse
	return e
}

// emptyAnswerError is the error of a 2xx answer to ep that holds no
// resource, such as a 204: the request took effect (it is not
// ErrOutcomeUnknown), but its result cannot be read.
func (c *Client) emptyAnswerError(req *http.Request, ep *endpoint, resp *Response) error {
	return &APIError{
		StatusCode: resp.StatusCode,
		Method:     req.Method,
		URL:        redactedURL(req),
		RequestID:  resp.RequestID,
		Header:     resp.Header,
		Attempts:   resp.Attempts,
		Message:    fmt.Sprintf("%s: the server answered %d without the resource; the request took effect", ep.operation, resp.StatusCode),
		kind:       ErrUnexpectedResponse,
	}
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

// failure is the error of a call that ended without a response to use.
func (c *Client) failure(call *callState, req *http.Request, o *outcome) error {
	if o.refusal != nil {
		o.refusal.Attempts = call.attempts
		return o.refusal
	}
	ctxErr := req.Context().Err()
	e := &APIError{Method: req.Method, URL: redactedURL(req), Attempts: call.attempts, kind: o.kind}
	e.outcomeUnknown = !call.idem && o.written
	cause := c.cleanCause(o.err)
	var lim *limiterError
	if errors.As(o.err, &lim) {
		cause = lim.err
		e.Message = "not sent: the rate limiter failed"
	}
	switch {
	case e.kind != nil:
		e.Err = causeError{cause}
	case cause == ctxErr:
		e.Err = ctxErr
	default:
		// The context's error, and no kind the cause might carry.
		e.Err = fmt.Errorf("%w: %w", ctxErr, causeError{cause})
	}
	return e
}

// cleanCause strips the *url.Error around err (Do's error already names
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
