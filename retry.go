package seoapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Retry defaults.
const (
	DefaultMaxRetries   = 3
	DefaultRetryWaitMin = 500 * time.Millisecond
	DefaultRetryWaitMax = 8 * time.Second
	DefaultMaxWait      = 60 * time.Second
)

// WithMaxRetries sets how many times a call is retried after its first
// attempt (default 3); 0 turns retrying off.
func WithMaxRetries(n int) Option {
	return func(cfg *clientConfig) {
		if n < 0 {
			cfg.reject("WithMaxRetries(%d): negative", n)
			return
		}
		cfg.retry.maxRetries = n
	}
}

// WithRetryWait bounds the backoff between retries when the server does
// not say how long to wait (default 500ms to 8s).
func WithRetryWait(min, max time.Duration) Option {
	return func(cfg *clientConfig) {
		if min < 0 || max < min {
			cfg.reject("WithRetryWait(%s, %s): need 0 <= min <= max", min, max)
			return
		}
		cfg.retry.waitMin, cfg.retry.waitMax = min, max
	}
}

// WithMaxWait sets the longest single wait the SDK accepts: a Retry-After,
// a rate-limit reset or the local hourly budget asking for more fails the
// call at once with ErrRateLimited instead (default 60s).
func WithMaxWait(d time.Duration) Option {
	return func(cfg *clientConfig) {
		if d < 0 {
			cfg.reject("WithMaxWait(%s): negative", d)
			return
		}
		cfg.retry.maxWait = d
	}
}

// retryPolicy decides whether and when an attempt is tried again.
type retryPolicy struct {
	maxRetries       int
	waitMin, waitMax time.Duration
	maxWait          time.Duration
}

func defaultRetryPolicy() retryPolicy {
	return retryPolicy{
		maxRetries: DefaultMaxRetries,
		waitMin:    DefaultRetryWaitMin,
		waitMax:    DefaultRetryWaitMax,
		maxWait:    DefaultMaxWait,
	}
}

// callState is what one call learns across its attempts. Each Client
// keeps its call states in a pool, each with a retryablehttp.Client whose
// hooks are bound to it once, so a call allocates neither.
type callState struct {
	policy *retryPolicy
	rc     retryablehttp.Client
	obs    *observation // nil when the client has no observers

	method   string
	idem     bool // whether a repeat cannot do harm
	attempts int  // attempts sent
	// body is the current attempt's body: whether it was read says
	// whether the request can have left (see bodyWasRead), whatever error a
	// failed dial or TLS handshake is reported as and whatever
	// RoundTripper sent it.
	body io.ReadCloser
	// written is whether the last failed attempt may have reached the server.
	written bool
	// nextWait is the wait before the next attempt, decided by checkRetry
	// and handed to retryablehttp through backoff.
	nextWait time.Duration
	// refusedWait is a wait the server asked for that the policy refused.
	refusedWait time.Duration
}

func newCallState(p *retryPolicy, hc *http.Client) *callState {
	call := &callState{policy: p}
	call.rc = retryablehttp.Client{
		HTTPClient:   hc,
		RetryMax:     p.maxRetries,
		CheckRetry:   call.checkRetry,
		Backoff:      call.backoff,
		ErrorHandler: call.errorHandler,
		PrepareRetry: call.rewindBody,
	}
	return call
}

// reset readies a pooled call state for req.
func (call *callState) reset(req *http.Request) {
	call.method = req.Method
	call.idem = idempotent(req.Method)
	call.attempts, call.nextWait, call.refusedWait = 0, 0, 0
	call.obs = nil
	call.written = false
	call.body = req.Body
}

// rewindBody gives a retry a fresh copy of the request body. The SDK hands
// retryablehttp the request as it is, so that the body is not copied once
// more for every call.
func (call *callState) rewindBody(req *http.Request) error {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return err
	}
	req.Body = body
	call.body = body
	return nil
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// checkRetry is called after every attempt.
func (call *callState) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if !isLocalRefusal(err) {
		call.attempts++
	}
	call.written = err != nil && call.mayHaveBeenWritten(err)
	retry := ctx.Err() == nil && call.attempts <= call.policy.maxRetries && call.retryable(resp, err)
	wait := time.Duration(0)
	if retry {
		var fromServer bool
		wait, fromServer = call.policy.wait(resp, call.attempts, time.Now())
		if tooLong(ctx, wait, call.policy.maxWait) {
			retry = false
			if fromServer {
				call.refusedWait = wait
			}
		}
	}
	call.nextWait = wait
	if call.obs != nil {
		call.obs.endAttempt(resp, err, ctx.Err(), retry, wait)
	}
	return retry, nil
}

func tooLong(ctx context.Context, wait, maxWait time.Duration) bool {
	if wait > maxWait {
		return true
	}
	deadline, ok := ctx.Deadline()
	return ok && time.Now().Add(wait).After(deadline)
}

// retryable says whether a repeat is safe and useful. Idempotent methods
// are repeated after connection failures and transient statuses; POST and
// PATCH only when the request certainly did not take effect: a 429, or a
// request that never left (a connection that never opened).
func (call *callState) retryable(resp *http.Response, err error) bool {
	if err != nil {
		if isLocalRefusal(err) || isPermanent(err) {
			return false
		}
		return call.idem || !call.written
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return call.idem
	}
	return false
}

// isLocalRefusal reports an attempt the client never sent: its limiter
// refused to wait, or failed.
func isLocalRefusal(err error) bool {
	if err == nil {
		return false
	}
	// Declared only past the nil check: a target errors.As may keep is
	// allocated, and most attempts end without an error.
	var (
		e   *APIError
		lim *limiterError
	)
	return errors.As(err, &lim) || errors.As(err, &e) && e.StatusCode == 0
}

// mayHaveBeenWritten reports whether a failed attempt may have reached
// the server: anything after the request was handed to the network,
// except an attempt whose body was never read, for no transport sends a
// request without reading its body, and otherwise a dial or TLS handshake
// that failed.
func (call *callState) mayHaveBeenWritten(err error) bool {
	var cut *cutError
	if errors.As(err, &cut) {
		return true
	}
	var sent *sendError
	if !errors.As(err, &sent) {
		return false
	}
	if read, known := bodyWasRead(call.body); known {
		return read
	}
	return !isDialError(err) && !isHandshakeError(err)
}

func isDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// isHandshakeError reports a TLS handshake that failed, before any of
// the request was written.
func isHandshakeError(err error) bool {
	var (
		cert   *tls.CertificateVerificationError
		header tls.RecordHeaderError
		alert  tls.AlertError
		auth   x509.UnknownAuthorityError
		host   x509.HostnameError
	)
	return errors.As(err, &cert) || errors.As(err, &header) || errors.As(err, &alert) ||
		errors.As(err, &auth) || errors.As(err, &host)
}

// isPermanent reports errors a repeat cannot cure: a certificate the
// client does not trust, a redirect refused.
func isPermanent(err error) bool {
	var cert *tls.CertificateVerificationError
	var redirect *redirectError
	return errors.As(err, &cert) || errors.As(err, &redirect)
}

// wait returns how long to wait before the next attempt: what the server
// asked for (Retry-After, or a rate-limit reset when none remain), but
// never less than waitMin, else an exponential backoff with jitter between
// waitMin and waitMax.
func (p *retryPolicy) wait(resp *http.Response, attempt int, now time.Time) (d time.Duration, fromServer bool) {
	if resp != nil {
		if d, ok := retryAfter(resp.Header, now); ok {
			return max(d, p.waitMin), true
		}
	}
	return p.backoff(attempt), false
}

func (p *retryPolicy) backoff(attempt int) time.Duration {
	ceiling := p.waitMax
	if shift := attempt - 1; shift < 32 {
		if d := p.waitMin << shift; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	// Equal jitter: half fixed, half random, so waits still grow but
	// clients that failed together do not retry together.
	half := ceiling / 2
	d := half
	if half > 0 {
		d += rand.N(half + 1)
	}
	return max(d, p.waitMin)
}

func (call *callState) backoff(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return call.nextWait
}

// errorHandler keeps the final response, so Do can turn it into an
// *APIError, instead of retryablehttp's "giving up" error.
func (call *callState) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	return resp, nil
}
