package seoapi

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"
)

// Retry defaults.
const (
	DefaultMaxRetries   = 3
	DefaultRetryWaitMin = 500 * time.Millisecond
	DefaultRetryWaitMax = 8 * time.Second
	DefaultMaxWait      = 60 * time.Second
)

// retryPolicy holds every retry rule. Its checkRetry and retryWait are
// go-retryablehttp's CheckRetry and Backoff: plain functions of what one
// attempt returned.
type retryPolicy struct {
	maxRetries       int
	waitMin, waitMax time.Duration
	maxWait          time.Duration // WithMaxWait; negative when not given
	idempotent       bool          // the request's method can be repeated without harm (newCall)
}

// checkRetry reports whether the attempt that ended with resp or err is
// tried again. A 429 is, for any method: the server refused the request.
// So are 408, 500, 502, 503 and 504 for an idempotent method, and a failure
// without an answer for an idempotent method or a request that never
// reached the server; never a certificate the client does not trust, a
// failure of the limiter, a redirect not followed, or an ended context. A
// retry whose shortest wait (the server's, or waitMin) is longer than the
// max wait or ends after ctx's deadline is not made: the call ends with
// the answer it got.
func (p retryPolicy) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, nil
	}
	if err != nil {
		var ce *connError
		var cert *tls.CertificateVerificationError
		return errors.As(err, &ce) && !errors.As(err, &cert) && (p.idempotent || !ce.reached), nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
	case http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if !p.idempotent {
			return false, nil
		}
	default:
		return false, nil
	}
	wait := p.waitMin
	if a := answerOf(resp); a.rate.asked {
		wait = max(a.rate.wait, p.waitMin)
	}
	deadline, ok := ctx.Deadline()
	return wait <= p.maxWaitOrDefault() && (!ok || time.Now().Add(wait).Before(deadline)), nil
}

// retryWait is the wait before the retry that follows attempt n+1: the
// wait the server asked for (Retry-After, or the reset of an exhausted
// limit), at least waitMin; otherwise the backoff, at most the max wait.
func (p retryPolicy) retryWait(_, _ time.Duration, n int, resp *http.Response) time.Duration {
	if a := answerOf(resp); a.rate.asked {
		return max(a.rate.wait, p.waitMin)
	}
	return min(p.backoff(n+1), p.maxWaitOrDefault())
}

// backoff is the wait before retry number attempt when the server did not
// ask for one: exponential between waitMin and waitMax, with jitter.
func (p retryPolicy) backoff(attempt int) time.Duration {
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

func (p retryPolicy) maxWaitOrDefault() time.Duration {
	if p.maxWait < 0 {
		return DefaultMaxWait
	}
	return p.maxWait
}

// connError is the error of an attempt that got no usable answer: the send
// failed, the body was cut, or the attempt timed out. reached is the one
// answer to "may this attempt's request have reached the server?", which
// decides whether a write is repeated and whether its error matches
// ErrOutcomeUnknown.
type connError struct {
	err     error
	reached bool
}

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// sendRecord says how far one attempt's request got.
type sendRecord struct {
	reached atomic.Bool // net/http had a connection for it, or its body was read
	written atomic.Bool // net/http wrote it whole
}

// track returns req with ctx, set up to record how far it gets: a trace
// marks it reached once net/http has a connection for it (before it writes
// anything) and written once it wrote it whole; each copy of body marks it
// reached once read, for a transport that traces nothing. A write asking
// for another connection after it was written whole ends its attempt. The
// caller calls the returned func once the attempt's answer is read.
func track(req *http.Request, ctx context.Context, body []byte, idempotent bool) (*http.Request, *sendRecord, context.CancelFunc) {
	rec := new(sendRecord)
	ctx, cancel := context.WithCancelCause(ctx)
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			if rec.written.Load() && !idempotent {
				// net/http's HTTP/2 sends a request without a body again
				// after a stream reset without asking GetBody.
				cancel(errNoResend)
			}
			rec.reached.Store(true)
		},
		WroteRequest: func(w httptrace.WroteRequestInfo) {
			if w.Err == nil {
				rec.written.Store(true)
			}
		},
	}))
	if body == nil {
		return req, rec, func() { cancel(nil) }
	}
	req.ContentLength = int64(len(body))
	req.Body = &sentBody{*bytes.NewReader(body), &rec.reached}
	req.GetBody = func() (io.ReadCloser, error) {
		if rec.written.Load() && !idempotent {
			// net/http's HTTP/2 sends a request again after a stream reset
			// or a GOAWAY, also when the server read it whole.
			return refusedBody{}, nil
		}
		rec.reached.Store(true)
		return &sentBody{*bytes.NewReader(body), &rec.reached}, nil
	}
	return req, rec, func() { cancel(nil) }
}

// mayHaveReached answers for an attempt that failed with err before an
// answer: yes once it was marked reached, whatever err says (a TLS error,
// or the dial error of net/http's HTTP/2 redial, can follow a request
// written whole); no for a request with a body never marked. A request
// without one is judged by err: only a dial or a TLS handshake that failed
// says it never reached the server. Once ctx ended, err may be another
// call's (the context's cause), saying nothing of this one.
func (rec *sendRecord) mayHaveReached(ctx context.Context, hasBody bool, err error) bool {
	switch {
	case rec.reached.Load():
		return true
	case hasBody:
		return false
	case ctx.Err() != nil:
		return true
	}
	return !connectError(err)
}

// connectError reports a connection that never opened: a dial, a DNS
// lookup or a TLS handshake failed.
func connectError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, new(*net.DNSError)) ||
		errors.As(err, new(*tls.CertificateVerificationError)) || errors.As(err, new(tls.RecordHeaderError)) ||
		errors.As(err, new(tls.AlertError)) || errors.As(err, new(x509.UnknownAuthorityError)) ||
		errors.As(err, new(x509.HostnameError))
}

// sentBody is one copy of a request body; it marks the request reached
// once read.
type sentBody struct {
	r       bytes.Reader
	reached *atomic.Bool
}

func (b *sentBody) Read(p []byte) (int, error) {
	b.reached.Store(true)
	return b.r.Read(p)
}

func (b *sentBody) Close() error { return nil }

// refusedBody is the copy GetBody gives net/http for a write it wrote
// whole: reading it fails, so it is not sent again. (http.Client's copy
// for a 307 or 308 is never read: checkRedirect follows none for a write.)
type refusedBody struct{}

func (refusedBody) Read([]byte) (int, error) { return 0, errNoResend }
func (refusedBody) Close() error             { return nil }

var errNoResend = errors.New("seoapi: a write the transport wrote whole is not sent again")
