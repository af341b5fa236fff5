package seoapi

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"time"
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

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// retryable says whether a repeat is safe and useful. Idempotent methods
// are repeated after connection failures and transient statuses; POST and
// PATCH only when the request certainly did not take effect: a 429, or a
// request that never left (a connection that never opened).
func (call *callState) retryable(o *outcome) bool {
	if o.err != nil {
		if !o.sent || isPermanent(o.err) {
			return false
		}
		return call.idem || !o.written
	}
	switch o.resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return call.idem
	}
	return false
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
func (p *retryPolicy) wait(a *answer, attempt int, now time.Time) (d time.Duration, asked bool) {
	if a != nil {
		if d, ok := a.wait(now); ok {
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

// backoffHook is go-retryablehttp's Backoff: the wait settle decided.
func (call *callState) backoffHook(_, _ time.Duration, _ int, _ *http.Response) time.Duration {
	return call.last.wait
}

// errorHandler hands the last attempt back as it ended, instead of
// go-retryablehttp's "giving up" error: the call reads its outcome.
func (call *callState) errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	return resp, err
}
