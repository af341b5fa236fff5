package seoapi

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
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
	logger           *slog.Logger
}

func defaultRetryPolicy() retryPolicy {
	return retryPolicy{
		maxRetries: DefaultMaxRetries,
		waitMin:    DefaultRetryWaitMin,
		waitMax:    DefaultRetryWaitMax,
		maxWait:    DefaultMaxWait,
	}
}

// callState is what one call learns across its attempts.
type callState struct {
	policy   *retryPolicy
	method   string
	path     string
	idem     bool // whether a repeat cannot do harm
	attempts int  // attempts sent
	// nextWait is the wait before the next attempt, decided by checkRetry
	// and handed to retryablehttp through backoff.
	nextWait time.Duration
	// refusedWait is a wait the server asked for that the policy refused.
	refusedWait time.Duration
}

func (p *retryPolicy) newCall(req *http.Request) *callState {
	return &callState{
		policy: p,
		method: req.Method,
		path:   req.URL.Path,
		idem:   idempotent(req.Method),
	}
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// client returns the retryablehttp client for this call. It is built per
// call so that its hooks can keep the call's state; hc, the connection
// pool and the limiter behind it, are shared.
func (call *callState) client(hc *http.Client) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   hc,
		RetryMax:     call.policy.maxRetries,
		CheckRetry:   call.checkRetry,
		Backoff:      call.backoff,
		ErrorHandler: call.errorHandler,
	}
}

// checkRetry is called after every attempt.
func (call *callState) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if !isLocalRefusal(err) {
		call.attempts++
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	retry := call.attempts <= call.policy.maxRetries && call.retryable(resp, err)
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
	call.log(ctx, resp, err, retry)
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
// connection that never opened.
func (call *callState) retryable(resp *http.Response, err error) bool {
	if err != nil {
		// The caller's own context was checked before this; a deadline
		// error here is the per-attempt timeout of the HTTP client.
		if isLocalRefusal(err) || isPermanent(err) {
			return false
		}
		return call.idem || isDialError(err)
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

func isLocalRefusal(err error) bool {
	var e *APIError
	return err != nil && errors.As(err, &e) && e.StatusCode == 0
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// isPermanent reports errors a repeat cannot cure: a certificate the
// client does not trust, a redirect loop, a malformed URL.
func isPermanent(err error) bool {
	var cert *tls.CertificateVerificationError
	if errors.As(err, &cert) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "stopped after") || strings.Contains(msg, "unsupported protocol scheme")
}

// wait returns how long to wait before the next attempt: what the server
// asked for (Retry-After, or a rate-limit reset when none remain), else an
// exponential backoff with jitter between waitMin and waitMax.
func (p *retryPolicy) wait(resp *http.Response, attempt int, now time.Time) (d time.Duration, fromServer bool) {
	if resp != nil {
		if d, ok := retryAfter(resp.Header, now); ok {
			return d, true
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

// retryAfter reads how long the server asked the client to wait:
// Retry-After in seconds or as an HTTP date, else the reset of an exhausted
// rate limit.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e9 {
			return time.Duration(secs * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	if r := parseRate(h, now); r.exhausted(now) {
		return r.Reset.Sub(now), true
	}
	return 0, false
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

// transportError is the error for a call that got no response.
func (call *callState) transportError(err error) error {
	var e *APIError
	if errors.As(err, &e) {
		e.Attempts = call.attempts
		return e
	}
	return err
}

func (call *callState) log(ctx context.Context, resp *http.Response, err error, retry bool) {
	logger := call.policy.logger
	if logger == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", call.method),
		slog.String("path", call.path),
		slog.Int("attempt", call.attempts),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode))
	} else if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	if retry {
		attrs = append(attrs, slog.Duration("wait", call.nextWait))
	}
	logger.LogAttrs(ctx, slog.LevelDebug, "seoapi: attempt", attrs...)
	if retry && call.nextWait > time.Second {
		logger.LogAttrs(ctx, slog.LevelWarn, "seoapi: retrying after a long wait", attrs...)
	}
}
