package seoapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// RoundTrip makes one attempt of the call, or follows one redirect of it:
// it waits for the limiter's turn, sends req, reads the answer's body whole
// within the cap and its rate headers, and tells the limiter what they
// say. The call is the Transport of the HTTP client go-retryablehttp sends
// with, so that CheckRetry and Backoff judge answers already read. The
// response's Body is an *answer; an error is a *limiterError (nothing was
// sent) or a *connError.
func (cl *call) RoundTrip(req *http.Request) (*http.Response, error) {
	c := cl.client
	first := req.Response == nil // a redirect's request carries the answer that asked for it
	var waits *waitRecords
	if cl.obs != nil {
		req, waits = cl.obs.startHop(req, first, cl.attempts+1)
	}
	ticket, err := c.limiter.acquire(req.Context(), c.retry.maxWait, waits)
	if cl.obs != nil {
		cl.obs.tellWaits()
	}
	if err != nil {
		return nil, &limiterError{err: err, retry: first && cl.attempts > 0}
	}
	if first {
		cl.attempts++
	}
	ctx := req.Context()
	if c.attemptTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.attemptTimeout, errAttemptTimeout)
		defer cancel() // the body is read before RoundTrip returns
	}
	out, sent, stop := track(req, ctx, cl.body, cl.policy.idempotent)
	defer stop() // the answer is read before RoundTrip returns
	start := c.now()
	resp, err := c.next.RoundTrip(out)
	c.limiter.done(ticket, err == nil)
	if err != nil {
		err = cl.failed(ctx, err, sent.mayHaveReached(ctx, cl.body != nil, err))
	} else {
		resp, err = cl.read(ctx, resp, start)
	}
	cl.lastResp, cl.lastErr = resp, err
	return resp, err
}

// failed is the connError of an attempt, noting when it ran out of its own
// time, which is not the caller's deadline.
func (cl *call) failed(ctx context.Context, err error, reached bool) error {
	cl.outcomeUnknown = cl.outcomeUnknown || reached
	if context.Cause(ctx) == errAttemptTimeout {
		err = fmt.Errorf("%w after %s: %w", errAttemptTimeout, cl.client.attemptTimeout, err)
	}
	return &connError{err: err, reached: reached}
}

// answer is the body of a response the attempt read whole, with what the
// SDK read from its headers, for the retry policy and the call's result.
type answer struct {
	*bytes.Reader // what go-retryablehttp drains before a retry
	data          []byte
	rate          rateHeaders // read once, from headers cleaned of the key
	link          []string    // the Link header as sent: fetchList fails on one holding the key
	// redact cleans the answer of the key and of every secret a created key's
	// body names; withhold keeps the body out of an error when not all can be.
	redact   *redactor
	withhold bool
	tooLarge bool // a 2xx body over the cap: data holds its start
}

func (*answer) Close() error { return nil }

// noAnswer stands for the answer of an attempt that got none.
var noAnswer answer

// answerOf returns the answer an attempt read for resp.
func answerOf(resp *http.Response) *answer {
	if resp != nil {
		if a, ok := resp.Body.(*answer); ok {
			return a
		}
	}
	return &noAnswer
}

// read reads an answer: its headers cleaned of the key and read once, the
// server's hold told to the limiter, the body read whole within the cap. A
// 2xx body cut short fails the attempt, which may be retried; of another
// status the body keeps what arrived, at most what an APIError shows.
func (cl *call) read(ctx context.Context, resp *http.Response, sent time.Time) (*http.Response, error) {
	c := cl.client
	now := c.now()
	a := &answer{link: resp.Header.Values("Link"), redact: c.redact}
	c.redact.answer(resp)
	a.rate = readRateHeaders(resp.Header, now)
	if f, ok := a.rate.hold(resp.StatusCode, now); ok {
		// A hold set since the request was sent is newer: this answer does not lift it.
		c.limiter.feedback(ctx, sent, f)
	}
	ok, limit, length := resp.StatusCode/100 == 2, c.maxResponseBytes, resp.ContentLength
	if !ok {
		limit = min(limit, maxErrorBody)
	}
	if resp.Body == http.NoBody {
		length = 0 // a HEAD answer (or a 204, a 304) declares a length it does not send
	}
	data, err := readCapped(resp.Body, length, limit)
	resp.Body.Close()
	switch {
	case errors.Is(err, errBodyTooLarge):
		a.tooLarge = ok
	case err != nil && ok:
		return nil, cl.failed(ctx, fmt.Errorf("reading the response body: %w", err), true)
	}
	a.data, a.Reader = data, bytes.NewReader(data)
	if cl.ep.secret {
		// The answer may hold a created secret, also when the call fails.
		var clean bool
		a.redact, clean = c.redact.withSecretsIn(data)
		a.withhold = !clean
		a.rate.requestID = a.redact.string(a.rate.requestID)
	}
	if resp.Trailer != nil || cl.ep.secret {
		// Trailers and the secrets of a body are known once it is read.
		a.redact.answer(resp)
	}
	cl.outcomeUnknown = cl.outcomeUnknown || resp.StatusCode/100 == 5
	resp.Body = a
	return resp, nil
}

// errBodyTooLarge is the error of a 2xx body larger than the response cap.
var errBodyTooLarge = errors.New("response body over the size cap")

// readCapped reads r to its end, failing with errBodyTooLarge once more
// than limit bytes arrive, with at most maxErrorBody bytes of what it read.
// A body of known length is read into one buffer of that size and a byte;
// one of unknown length into a buffer that doubles as the body grows, so
// that it costs at most four times its size in all (a 3 MiB body 2.7
// times) and one over the limit twice the limit. (io.ReadAll costs less,
// but twice as much under the race detector, which the tests of the
// memory bounds run under.)
func readCapped(r io.Reader, length, limit int64) ([]byte, error) {
	if length > limit {
		data, _ := io.ReadAll(io.LimitReader(r, min(limit, maxErrorBody)))
		return data, errBodyTooLarge
	}
	size := int64(512)
	if length >= 0 {
		size = length + 1 // the byte of the read that finds the end
	}
	buf := make([]byte, 0, min(size, limit+1))
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case int64(len(buf)) > limit:
			// A copy: the error's body does not pin a buffer of the limit's size.
			return bytes.Clone(buf[:min(limit, maxErrorBody)]), errBodyTooLarge
		case err == io.EOF && length >= 0 && int64(len(buf)) != length:
			if int64(len(buf)) > length {
				return buf, errors.New("body longer than its Content-Length")
			}
			return buf, io.ErrUnexpectedEOF
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf):
			next := 2 * int64(cap(buf))
			if 4*next > 3*limit {
				// Not a buffer of nearly the limit and then one of the limit.
				next = limit + 1
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
	}
}

// errAttemptTimeout ends an attempt longer than WithAttemptTimeout.
var errAttemptTimeout = errors.New("attempt timed out")

// limiterError is a failure of the limiter's turn: nothing was sent. A
// refusal is ErrRateLimited; any other failure (Redis down) ends the call
// at once.
type limiterError struct {
	err   error
	retry bool // the turn of a retry
}

func (e *limiterError) Error() string { return "rate limiter: " + e.err.Error() }
func (e *limiterError) Unwrap() error { return e.err }
