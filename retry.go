package seoapi

import (
	"crypto/tls"
	"errors"
	"math/rand/v2"
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

// retryPolicy decides whether and when an attempt is tried again.
type retryPolicy struct {
	maxRetries       int
	waitMin, waitMax time.Duration
	maxWait          time.Duration
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
// request that never left. A certificate the client does not trust is
// not cured by a repeat.
func (p *retryPolicy) retryable(r *result, idem bool) bool {
	if r.resp == nil {
		var cert *tls.CertificateVerificationError
		return r.sent && r.kind == ErrConnection && !errors.As(r.err, &cert) && (idem || !r.mayHaveLeft)
	}
	switch r.resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return idem
	}
	return false
}

// backoff is the wait before retry number attempt when the server did not
// ask for one: exponential between waitMin and waitMax, with jitter.
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
