package seoapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// result is what one attempt came to, worked out once by settle.
type result struct {
	resp *http.Response // the answer used; nil when there is none
	data []byte         // its body, read whole within the cap
	rate rateHeaders    // what resp's headers say, read once
	link []string       // the Link header as sent: fetchList fails on one holding the key
	// redact cleans the answer of the key and of every secret a created key's
	// body names; withhold keeps the body out of an error when not all can be.
	redact   *redactor
	withhold bool
	tooLarge bool // a 2xx body over the cap: data holds its start

	err         error     // why there is no answer to use
	refusal     *APIError // the limiter's refusal to wait, when that is err
	kind        error     // the one kind of a failure or a non-2xx status; nil on a 2xx or an ended context
	status      int       // the status the attempt ended with, also beside an error
	sent        bool      // the limiter let the request go
	mayHaveLeft bool      // it may have reached the server (a failure only)
	retry       bool      // another attempt follows, after wait
	wait        time.Duration
	refusedWait time.Duration // a wait the policy refused: the server's, or the limiter's
}

// mayHaveTakenEffect reports whether the attempt's request may have done what it asked.
func (r *result) mayHaveTakenEffect() bool {
	return r.mayHaveLeft || serverError(r.status)
}

func serverError(status int) bool { return status >= 500 && status <= 599 }

// hopTransport is the RoundTripper under the retry loop and http.Client's
// redirects: one RoundTrip is one hop of an attempt.
type hopTransport struct {
	next     http.RoundTripper
	builtIn  bool // next is the net/http Transport the SDK built
	limiter  attemptLimiter
	maxWait  time.Duration
	timeout  time.Duration // bounds one hop, body included: the caller's http.Client.Timeout
	observed bool          // the client has observers, told about each attempt
}

// RoundTrip waits for the limiter's turn, sends req and tells the limiter
// when the answer arrived (or the send failed).
func (t *hopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var ticket slotTicket
	var err error
	if t.observed {
		o := req.Context().Value(observationKey{}).(*observation)
		req, ticket, err = o.acquire(req, t.limiter, t.maxWait)
	} else {
		ticket, err = t.limiter.acquire(req.Context(), t.maxWait, nil)
	}
	if err != nil {
		return nil, &limiterError{err}
	}
	ctx, cancel := req.Context(), context.CancelFunc(func() {})
	if t.timeout > 0 {
		// The hop ends when its body is closed (hopBody).
		ctx, cancel = context.WithTimeoutCause(ctx, t.timeout, errAttemptTimeout)
		req = req.WithContext(ctx)
	}
	resp, err := t.next.RoundTrip(req)
	t.limiter.done(ticket, err == nil)
	switch {
	case err != nil:
		cancel()
		if context.Cause(ctx) == errAttemptTimeout {
			// The hop ran out of its own time: not the caller's deadline.
			err = fmt.Errorf("%w after %s: %w", errAttemptTimeout, t.timeout, err)
		}
		return nil, err
	case t.timeout > 0 && resp.Body != http.NoBody:
		resp.Body = &hopBody{ReadCloser: resp.Body, cancel: cancel}
	default:
		cancel()
	}
	return resp, nil
}

// hopBody ends the hop's time limit when its body is closed.
type hopBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *hopBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// settle is go-retryablehttp's CheckRetry: it works out the attempt's
// result, decides what follows, tells the observers and records it.
func (cl *call) settle(ctx context.Context, resp *http.Response, err error) (bool, error) {
	var r result
	if err == nil {
		r = cl.answered(ctx, resp)
	} else {
		r = cl.failed(ctx, resp, err)
	}
	if r.sent {
		cl.attempts++
	}
	cl.decide(ctx, &r)
	if cl.obs != nil {
		cl.obs.endAttempt(&r)
	}
	cl.record(r)
	return r.retry, nil
}

// answered reads the answer: headers cleaned of the key and read once,
// the server's hold told to the limiter, the body read whole within the
// cap (a body cut short fails the attempt, which may be retried).
func (cl *call) answered(ctx context.Context, resp *http.Response) result {
	c := cl.client
	now := c.now()
	link := resp.Header.Values("Link")
	c.redact.answer(resp)
	r := result{resp: resp, status: resp.StatusCode, sent: true, link: link, rate: readRateHeaders(resp.Header, now)}
	if f, ok := r.rate.hold(resp.StatusCode, now); ok {
		// A hold set since the attempt began is newer: this answer does not lift it.
		c.transport.limiter.feedback(ctx, cl.attemptStart, f)
	}
	data, tooLarge, err := c.readBody(resp)
	if err != nil {
		return cl.failed(ctx, nil, &cutError{err})
	}
	r.data, r.tooLarge, r.redact = data, tooLarge, c.redact
	if cl.ep.secret {
		// The answer may hold a created secret, also when the call fails.
		var clean bool
		r.redact, clean = c.redact.withSecretsIn(data)
		r.withhold = !clean
		r.rate.requestID = r.redact.string(r.rate.requestID)
	}
	if resp.Trailer != nil || cl.ep.secret {
		// Trailers and the secrets of a body are known once it is read.
		r.redact.answer(resp)
	}
	if !success(resp.StatusCode) {
		r.kind = kindOfStatus(resp.StatusCode)
	}
	return r
}

func success(status int) bool { return status >= 200 && status <= 299 }

// readBody reads resp's body. A 2xx body must arrive whole within the cap;
// of another it keeps what arrived, at most what an APIError shows.
func (c *Client) readBody(resp *http.Response) (data []byte, tooLarge bool, err error) {
	defer resp.Body.Close()
	limit, length := c.maxResponseBytes, resp.ContentLength
	if !success(resp.StatusCode) {
		limit = min(limit, maxErrorBody)
	}
	if resp.Body == http.NoBody {
		// A HEAD answer (or a 204, a 304) declares a length it does not send.
		length = 0
	}
	data, err = readCapped(resp.Body, length, limit)
	resp.Body = http.NoBody
	switch {
	case errors.Is(err, errBodyTooLarge):
		return data, success(resp.StatusCode), nil
	case err != nil && success(resp.StatusCode):
		return nil, false, err
	}
	return data, false, nil
}

// failed sorts an attempt that ended without an answer to use by what this
// attempt did: an ended context says only why it ended, whatever its cause.
func (cl *call) failed(ctx context.Context, resp *http.Response, err error) result {
	r := result{err: err}
	if resp != nil {
		// A redirect the caller's CheckRedirect refused.
		r.status = resp.StatusCode
		resp.Body.Close()
	}
	var lim *limiterError
	if !errors.As(err, &lim) {
		r.sent = true
		r.mayHaveLeft = cl.mayHaveLeft(ctx, err)
	}
	switch {
	case ctx.Err() != nil && !errors.Is(err, errAttemptTimeout):
		r.err = ctx.Err()
	case lim != nil && errors.As(lim.err, &r.refusal) && r.refusal.StatusCode == 0:
		r.err, r.kind = lim.err, ErrRateLimited // the refusal says what happened
	case lim != nil:
		r.refusal = nil
		r.err, r.kind = lim, kindOf(lim.err)
	case errors.As(err, new(*redirectError)):
		r.kind = ErrUnexpectedResponse
	default:
		r.kind = ErrConnection
	}
	return r
}

// mayHaveLeft is the one answer to "may this attempt's request have reached
// the server?": yes once answered, or once it was marked left (attemptMarks:
// a connection was had, a byte of the body read), whatever the error, since
// a TLS error or, after net/http's HTTP/2 redial, a dial error can follow a
// request written whole; no when a request with a body was never marked
// left. A request without one is judged by its error: only a dial or a TLS
// handshake that failed says it never left. Once the caller's context
// ended, err may be another call's, saying nothing of this.
func (cl *call) mayHaveLeft(ctx context.Context, err error) bool {
	switch {
	case errors.As(err, new(*cutError)), cl.marks.Load().left.Load():
		return true
	case cl.body != nil:
		return false
	case ctx.Err() != nil:
		return true
	}
	return !connectError(err)
}

// decide settles whether another attempt follows, and after how long.
func (cl *call) decide(ctx context.Context, r *result) {
	p := &cl.client.retry
	succeeded := r.resp != nil && r.kind == nil // a 2xx
	if succeeded || ctx.Err() != nil || cl.attempts > p.maxRetries || !p.retryable(r, cl.idem) {
		return
	}
	wait := p.backoff(cl.attempts)
	if r.rate.asked {
		wait = max(r.rate.wait, p.waitMin)
	}
	if (maxWaitLimit{client: p.maxWait}).check(ctx, wait, cl.client.now(), "retry") != nil {
		if r.rate.asked {
			r.refusedWait = wait
		}
		return
	}
	r.retry, r.wait = true, wait
}

// record keeps r as the call's last result. A retry the limiter refused
// ends the call with the answered attempt before it, and the wait refused.
func (cl *call) record(r result) {
	if r.refusal != nil && cl.last.sent {
		cl.last.retry, cl.last.refusedWait = false, r.refusal.RetryAfter
		return
	}
	cl.effect = cl.effect || cl.last.sent && cl.last.mayHaveTakenEffect()
	cl.last = r
}

// connectError reports a connection that never opened: a dial, a DNS
// lookup or a TLS handshake failed before any of the request was written.
func connectError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, new(*net.DNSError)) ||
		errors.As(err, new(*tls.CertificateVerificationError)) || errors.As(err, new(tls.RecordHeaderError)) ||
		errors.As(err, new(tls.AlertError)) || errors.As(err, new(x509.UnknownAuthorityError)) ||
		errors.As(err, new(x509.HostnameError))
}

// errAttemptTimeout ends a hop longer than the HTTP client's Timeout.
var errAttemptTimeout = errors.New("attempt timed out")

// limiterError is a failure of the limiter's turn: nothing was sent. A refusal
// is ErrRateLimited; any other failure (Redis down) ends the call at once.
type limiterError struct{ err error }

func (e *limiterError) Error() string { return "rate limiter: " + e.err.Error() }
func (e *limiterError) Unwrap() error { return e.err }

// cutError is a failure while reading the body of a response: the
// request was certainly written and the server answered.
type cutError struct{ err error }

func (e *cutError) Error() string { return "reading the response body: " + e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }
