package seoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// An attempt, top to bottom. go-retryablehttp's loop runs the attempts of
// a call; http.Client follows a redirect that stays inside the base URL;
// each hop is one RoundTrip of hopTransport, and each attempt ends in
// settle, the loop's CheckRetry:
//
//	hop      the limiter's turn -> send -> the headers cleaned of the key and
//	         read once -> tell the limiter what the server said -> read the
//	         body, capped
//	settle   classify the attempt into one outcome -> decide: done, or wait
//	         and try again
//
// The loop's other hooks only read the outcome (Backoff returns its wait),
// and so do the observers, the call's *APIError and its Response.

// outcome is what one attempt came to, worked out once by settle.
type outcome struct {
	resp   *http.Response // the response used; nil when there is none
	answer *answer        // what the hop read of resp
	err    error          // why there is no response to use
	// refusal is the limiter's refusal to wait, when that is the error:
	// the call's error is that *APIError itself.
	refusal *APIError
	// kind is the one kind of a failure or of a status other than 2xx;
	// nil on a 2xx, and when the caller's context ended.
	kind    error
	sent    bool // false when the limiter refused, or failed, before sending
	written bool // the request may have reached the server (a failure only)
	retry   bool // another attempt follows, after wait
	wait    time.Duration
	// refusedWait is a wait the server asked for that the policy refused.
	refusedWait time.Duration
	// status is the status of the response the attempt ended with, also
	// beside an error (a redirect the caller's CheckRedirect refused); 0
	// when there was none.
	status int
}

// settled reports whether an attempt came to this outcome.
func (o *outcome) settled() bool { return o.resp != nil || o.err != nil }

func (o *outcome) success() bool {
	return o.resp != nil && o.resp.StatusCode >= 200 && o.resp.StatusCode <= 299
}

// errorType names the attempt's kind for the observers.
func (o *outcome) errorType(ctxErr error) string {
	switch {
	case o.kind != nil:
		return ErrorType(o.kind)
	case o.err != nil:
		return ErrorType(ctxErr)
	}
	return ""
}

// hopTransport is the RoundTripper under the retry loop and http.Client's
// redirects: one RoundTrip is one hop of an attempt.
type hopTransport struct {
	next    http.RoundTripper
	limiter attemptLimiter
	maxWait time.Duration
	// timeout bounds one hop, body included (the Timeout of the
	// http.Client the SDK was given, applied here so that the body it
	// hands on stays its own).
	timeout  time.Duration
	maxBytes int64
	redact   redactor
	now      func() time.Time
}

// RoundTrip runs one hop: the limiter's turn, the send, what the server
// said told to the limiter, and the body read whole within the cap, so
// that a body cut short fails the attempt and the policy can try again.
func (t *hopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	obs := observationFrom(req.Context())
	if obs != nil {
		req = obs.beginAttempt(req)
	}
	ticket, err := t.turn(req, obs)
	if err != nil {
		return nil, err
	}
	req, cancel := t.bound(req)
	defer cancel()
	resp, err := t.next.RoundTrip(req)
	t.limiter.done(ticket, err == nil)
	if err != nil {
		return nil, &sendError{err: t.timeoutCause(req, err)}
	}
	a := t.readHeaders(resp)
	if f, ok := a.hold(resp.StatusCode, t.now()); ok {
		t.limiter.feedback(req.Context(), ticket, f)
	}
	if err := t.readBody(resp, a); err != nil {
		return nil, &cutError{err: t.timeoutCause(req, err)}
	}
	// Trailer values arrive with the end of the body.
	if resp.Trailer != nil {
		resp.Trailer = t.redact.header(resp.Trailer)
	}
	return resp, nil
}

// turn waits for the limiter, tells the observers how long, and sorts a
// failure: a refused wait (the *APIError of ErrRateLimited), the caller's
// context, or the limiter's own failure.
func (t *hopTransport) turn(req *http.Request, obs *observation) (slotTicket, error) {
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

// bound gives the hop its own time limit, when the caller's http.Client
// set one.
func (t *hopTransport) bound(req *http.Request) (*http.Request, context.CancelFunc) {
	if t.timeout <= 0 {
		return req, func() {}
	}
	ctx, cancel := context.WithTimeoutCause(req.Context(), t.timeout, errAttemptTimeout)
	return req.WithContext(ctx), cancel
}

// timeoutCause turns the error of a hop that ran out of its own time into
// errAttemptTimeout, so it is not taken for the caller's deadline.
func (t *hopTransport) timeoutCause(req *http.Request, err error) error {
	if context.Cause(req.Context()) == errAttemptTimeout {
		return fmt.Errorf("%w after %s: %w", errAttemptTimeout, t.timeout, err)
	}
	return err
}

// readHeaders cleans the response's headers of any form of the key a
// server echoed (the Response the caller gets holds them) and reads what
// they say, once.
func (t *hopTransport) readHeaders(resp *http.Response) *answer {
	resp.Header = t.redact.header(resp.Header)
	return &answer{rateHeaders: readRateHeaders(resp.Header, t.now())}
}

// settle is go-retryablehttp's CheckRetry: it classifies the attempt that
// ended with resp or err into one outcome, decides what follows, and tells
// the observers.
func (call *callState) settle(ctx context.Context, resp *http.Response, err error) (bool, error) {
	o := call.classify(ctx, resp, err)
	call.decide(ctx, &o)
	call.last = o
	if call.obs != nil {
		call.obs.endAttempt(&o, ctx.Err())
	}
	return o.retry, nil
}

// classify sorts how an attempt ended into one outcome.
func (call *callState) classify(ctx context.Context, resp *http.Response, err error) outcome {
	if err == nil {
		// Every response comes through hopTransport, whose answer is its body.
		o := outcome{resp: resp, answer: resp.Body.(*answer), sent: true, status: resp.StatusCode}
		if !o.success() {
			o.kind = kindOfStatus(resp.StatusCode)
		}
		return o
	}
	o := outcome{err: err}
	if resp != nil {
		o.status = resp.StatusCode
	}
	var lim *limiterError
	switch {
	case errors.As(err, &o.refusal) && o.refusal.StatusCode == 0:
		// The limiter would have waited longer than the caller accepts.
		o.kind = ErrRateLimited
	case errors.As(err, &lim):
		// The limiter itself failed (a fleet's store, say).
		o.refusal = nil
		if ctx.Err() == nil {
			o.kind = kindOf(lim.err)
		}
	default:
		o.refusal = nil
		o.sent = true
		o.written = call.mayHaveBeenWritten(err)
		o.kind = failureKind(err, ctx.Err())
	}
	return o
}

// decide counts the attempt and settles whether another follows, and
// after how long.
func (call *callState) decide(ctx context.Context, o *outcome) {
	if o.sent {
		call.attempts++
	}
	if ctx.Err() != nil || call.attempts > call.policy.maxRetries || !call.retryable(o) {
		return
	}
	wait, asked := call.policy.wait(o.answer, call.attempts, time.Now())
	limit := maxWaitLimit{d: call.policy.maxWait, name: "WithMaxWait"}
	if limit.check(ctx, wait, time.Now(), "retry") != nil {
		if asked {
			o.refusedWait = wait
		}
		return
	}
	o.retry, o.wait = true, wait
}

// failureKind is the one kind of an attempt that was sent and ended with
// err and no response to use, or nil when it is the caller's context's
// error (ctxErr, when the context has ended).
func failureKind(err, ctxErr error) error {
	switch {
	case ctxErr != nil && !errors.Is(err, errAttemptTimeout):
		return nil
	case isRedirectError(err):
		return ErrUnexpectedResponse
	}
	return ErrConnection
}

// errAttemptTimeout ends a hop that took longer than the HTTP client's
// Timeout.
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
