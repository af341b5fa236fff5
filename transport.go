package seoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// limitedTransport is the RoundTripper under the retry loop. One attempt
// of a call is one RoundTrip (and one more for each redirect it follows):
// it tells the observers the attempt began, waits for the rate limiter
// (the server's last word first), sends, tells the limiter what the
// response said about the limit, and reads the whole body, so that a body
// cut short fails the attempt and the retry policy can try again.
type limitedTransport struct {
	next    http.RoundTripper
	limiter attemptLimiter
	maxWait time.Duration
	// timeout bounds one attempt, body included (the Timeout of the
	// http.Client the SDK was given, which the SDK applies here so that
	// the body it hands on stays its own).
	timeout  time.Duration
	maxBytes int64
	now      func() time.Time
}

// RoundTrip runs one attempt, or one hop of it when a redirect is followed.
func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	obs := observationFrom(req.Context())
	if obs != nil {
		req = obs.beginAttempt(req)
	}
	ticket, err := t.waitTurn(req, obs)
	if err != nil {
		return nil, err
	}
	cancel := func() {}
	if t.timeout > 0 {
		ctx, stop := context.WithTimeoutCause(req.Context(), t.timeout, errAttemptTimeout)
		req, cancel = req.WithContext(ctx), stop
	}
	defer cancel()
	resp, err := t.next.RoundTrip(req)
	t.limiter.done(ticket)
	if err != nil {
		return nil, &sendError{err: t.timeoutCause(req, err)}
	}
	if f, ok := rateFeedback(resp.StatusCode, resp.Header, t.now()); ok {
		t.limiter.feedback(req.Context(), f)
	}
	if err := t.bufferBody(resp); err != nil {
		return nil, &cutError{err: t.timeoutCause(req, err)}
	}
	return resp, nil
}

// waitTurn waits for the limiter, tells the observers how long, and sorts
// a failure: a refused wait (the *APIError of ErrRateLimited), the
// caller's context, or the limiter's own failure.
func (t *limitedTransport) waitTurn(req *http.Request, obs *observation) (slotTicket, error) {
	var waits *waitRecords
	if obs != nil {
		waits = obs.newWaits()
	}
	ticket, err := t.limiter.acquire(req.Context(), t.maxWait, waits)
	if obs != nil {
		obs.reportWaits(waits)
	}
	if err == nil {
		return ticket, nil
	}
	var refused *APIError
	if errors.As(err, &refused) && refused.StatusCode == 0 {
		if refused.Method == "" {
			refused.Method, refused.URL = req.Method, redactedURL(req)
		}
		return ticket, err
	}
	if ctxErr := req.Context().Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return ticket, err
	}
	return ticket, &limiterError{err: err}
}

// timeoutCause turns the error of an attempt that ran out of its own time
// into errAttemptTimeout, so it is not taken for the caller's deadline.
func (t *limitedTransport) timeoutCause(req *http.Request, err error) error {
	if context.Cause(req.Context()) == errAttemptTimeout {
		return fmt.Errorf("%w after %s: %w", errAttemptTimeout, t.timeout, err)
	}
	return err
}

// errAttemptTimeout ends an attempt that took longer than the HTTP
// client's Timeout.
var errAttemptTimeout = errors.New("attempt timed out")

// limiterError is a failure of the limiter itself (a fleet limiter that
// cannot reach Redis, say): nothing was sent, and the call ends at once.
type limiterError struct{ err error }

func (e *limiterError) Error() string { return "rate limiter: " + e.err.Error() }

func (e *limiterError) Unwrap() error { return e.err }

// sendError is a failure after the request was handed to the network:
// it may have been written.
type sendError struct{ err error }

func (e *sendError) Error() string { return e.err.Error() }

func (e *sendError) Unwrap() error { return e.err }

// cutError is a failure while reading the body of a response: the
// request was certainly written and the server answered.
type cutError struct{ err error }

func (e *cutError) Error() string { return "reading the response body: " + e.err.Error() }

func (e *cutError) Unwrap() error { return e.err }
