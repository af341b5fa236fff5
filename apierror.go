package seoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// responseError is the *APIError of a response to req that the call
// fails on, with body (what the SDK kept of it) and the headers cleaned of
// any form of the key the server echoed. It names the URL the caller asked
// for, not a redirect's, which the server chose.
func (c *Client) responseError(req *http.Request, resp *http.Response, body []byte, call *callState) *APIError {
	clean, header := c.redact.bytes(body), c.redact.header(resp.Header)
	e := &APIError{
		StatusCode: resp.StatusCode,
		Method:     req.Method,
		URL:        redactedURL(req),
		RequestID:  requestID(header),
		Body:       clean[:min(len(clean), maxErrorBody)],
		Header:     header,
		Attempts:   call.attempts,
	}
	if d, ok := retryAfter(header, c.now()); ok {
		e.RetryAfter = d
	}
	return e
}

// apiError is the error of a non-2xx response to req.
func (c *Client) apiError(req *http.Request, resp *http.Response, body []byte, call *callState) error {
	e := c.responseError(req, resp, body, call)
	e.Message, e.Code = parseErrorBody(e.Body)
	e.Message, e.Code = c.redact.string(e.Message), c.redact.string(e.Code)
	if call.refusedWait > 0 {
		// The server asked for a wait the caller does not accept: the call
		// failed for the rate limit, whatever the status.
		e.RetryAfter, e.kind = call.refusedWait, ErrRateLimited
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		e.Message = "redirect not followed"
		if loc := e.Header.Get("Location"); loc != "" {
			e.Message += " (Location: " + loc + ")"
		}
	}
	return e
}

// decodeError is the error of a 2xx body the SDK could not read.
func (c *Client) decodeError(req *http.Request, resp *http.Response, body []byte, err error, call *callState) error {
	// A decoding error may quote what it failed on.
	err = c.cleanCause(err)
	if createsSecret(req.Method, c.relativePath(req.URL)) {
		// The answer of a created key that cannot be read may hold its
		// secret anywhere: none of it, nor what a decoder quoted of it,
		// goes into the error.
		body, err = nil, errSecretWithheld
	}
	e := c.responseError(req, resp, body, call)
	e.Message = decodeMessage(resp.StatusCode, err, e.Body, body == nil)
	e.Err, e.kind = err, ErrUnexpectedResponse
	return e
}

// errSecretWithheld stands for the decoding error of an answer that may
// hold a created secret.
var errSecretWithheld = errors.New("the answer could not be read")

// createsSecret reports a request whose answer carries a new secret (a
// created API key).
func createsSecret(method, path string) bool {
	_, route := routeOf(method, path)
	return route == "POST /api/workspaces/{id}/api-keys"
}

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
func (c *Client) failure(call *callState, req *http.Request, err error) error {
	var refused *APIError
	if errors.As(err, &refused) && refused.StatusCode == 0 {
		refused.Attempts = call.attempts
		if refused.Method == "" {
			refused.Method, refused.URL = req.Method, redactedURL(req)
		}
		return refused
	}
	ctxErr := req.Context().Err()
	e := &APIError{Method: req.Method, URL: redactedURL(req), Attempts: call.attempts}
	e.outcomeUnknown = !call.idem && call.written
	e.kind = failureKind(err, ctxErr)
	cause := c.cleanCause(err)
	var lim *limiterError
	if errors.As(err, &lim) {
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

// failureKind is the one kind of an attempt or a call that ended with err
// and no response to use, or nil when it is the caller's context's error
// (ctxErr, when the context has ended). The call's error and the
// observers' attempt events both take their kind from here.
func failureKind(err, ctxErr error) error {
	var (
		refused *APIError
		lim     *limiterError
	)
	switch {
	case errors.As(err, &refused) && refused.StatusCode == 0:
		return ErrRateLimited
	case errors.As(err, &lim) && ctxErr == nil:
		return kindOf(lim.err)
	case ctxErr != nil && !errors.Is(err, errAttemptTimeout):
		return nil
	case isRedirectError(err):
		return ErrUnexpectedResponse
	}
	return ErrConnection
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
