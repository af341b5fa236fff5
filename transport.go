package seoapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
	t.limiter.sent(ticket)
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
	ticket, err := t.limiter.waitTurn(req.Context(), t.maxWait, waits)
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

// newStallTransport is the transport of the HTTP client the SDK builds
// itself. It fails an attempt that stalls: no connection, no response
// headers, or no progress reading or writing for d. A stalled attempt is
// caught without a timer and a context per attempt, which cost a call
// more than the rest of the SDK's overhead, and a large body that keeps
// arriving is never cut off.
func newStallTransport(d time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = d
	// Keep a connection for each request a second may hold in flight, not
	// net/http's two: every request over two would dial anew.
	t.MaxIdleConnsPerHost = DefaultRequestsPerSecond
	t.TLSHandshakeTimeout = min(t.TLSHandshakeTimeout, d)
	dialer := &net.Dialer{Timeout: d, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &stallConn{Conn: conn, timeout: d}, nil
	}
	return t
}

// stallConn fails a read or a write that makes no progress for timeout.
type stallConn struct {
	net.Conn
	timeout time.Duration
}

func (c *stallConn) Read(p []byte) (int, error) {
	if err := c.Conn.SetReadDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Read(p)
}

func (c *stallConn) Write(p []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.timeout)); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
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

// errBodyTooLarge is the error of a 2xx body larger than the response cap.
var errBodyTooLarge = errors.New("response body over the size cap")

// bufferedBody is a response body read whole inside its attempt. Do takes
// the bytes from it without a copy.
type bufferedBody struct {
	bytes.Reader
	data []byte
	// tooLarge is set for a body that passed the size cap; data holds
	// its start.
	tooLarge bool
}

// Close empties the reader, so that the body Do has read (a created
// secret, say) cannot be read again from the Response.
func (b *bufferedBody) Close() error {
	b.Reset(nil)
	return nil
}

// bufferBody replaces resp.Body with the body read whole. A 2xx body must
// arrive complete and within the cap; of any other body the SDK keeps at
// most what an APIError shows, and what was read when the body is cut.
func (t *limitedTransport) bufferBody(resp *http.Response) error {
	defer resp.Body.Close()
	limit := t.maxBytes
	success := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if !success {
		limit = min(limit, maxErrorBody)
	}
	length := resp.ContentLength
	if resp.Body == http.NoBody {
		// A HEAD answer (or a 204, a 304) declares a length it does not send.
		length = 0
	}
	data, err := readCapped(resp.Body, length, limit)
	body := &bufferedBody{data: data}
	switch {
	case errors.Is(err, errBodyTooLarge):
		// A status the SDK reports keeps what was read: an error body
		// needs no more than its start.
		body.tooLarge = success
	case err != nil && success:
		return err
	}
	body.Reset(data)
	resp.Body = body
	return nil
}

// readCapped reads r to its end, failing with errBodyTooLarge once more
// than limit bytes arrive; it then returns at most maxErrorBody bytes of
// what it read. A body of known length is read into one buffer of that
// size. Memory stays under 1.25 times the limit whatever a server sends.
func readCapped(r io.Reader, length, limit int64) ([]byte, error) {
	switch {
	case length > limit:
		data, _ := readUnknown(io.LimitReader(r, min(limit, maxErrorBody)), limit)
		return data, errBodyTooLarge
	case length >= 0:
		buf := make([]byte, length)
		n, err := io.ReadFull(r, buf)
		if err != nil {
			return buf[:n], err
		}
		var probe [1]byte
		if n, err := r.Read(probe[:]); n > 0 {
			return buf, errors.New("body longer than its Content-Length")
		} else if err != nil && err != io.EOF {
			return buf, err
		}
		return buf, nil
	}
	return readUnknown(r, limit)
}

// readUnknown reads a body of unknown length: into one buffer that doubles
// while the body is small next to the limit, then in chunks of up to 1 MiB
// joined at the end, so that a buffer never doubles past the limit.
func readUnknown(r io.Reader, limit int64) ([]byte, error) {
	small := int(max(limit/8, 4<<10))
	buf := make([]byte, 0, min(limit+1, 1<<10))
	var chunks [][]byte
	total := int64(0)
	for {
		if len(buf) == cap(buf) {
			if total+int64(len(buf)) > limit {
				break
			}
			if next := min(2*cap(buf), int(limit+1)); chunks == nil && next <= small {
				buf = append(make([]byte, 0, next), buf...)
			} else {
				chunks = append(chunks, buf)
				total += int64(len(buf))
				buf = make([]byte, 0, min(int64(max(cap(buf), 1<<20)), limit+1-total))
			}
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return joinChunks(append(chunks, buf), limit), nil
		}
		if err != nil {
			return joinChunks(append(chunks, buf), limit), err
		}
	}
	return joinChunks(append(chunks, buf), min(limit, maxErrorBody)), errBodyTooLarge
}

// joinChunks returns at most the first n bytes of chunks as one slice.
func joinChunks(chunks [][]byte, n int64) []byte {
	if len(chunks) == 1 {
		return chunks[0][:min(int64(len(chunks[0])), n)]
	}
	total := int64(0)
	for _, c := range chunks {
		total += int64(len(c))
	}
	out := make([]byte, 0, min(total, n))
	for _, c := range chunks {
		out = append(out, c[:min(int64(len(c)), n-int64(len(out)))]...)
	}
	return out
}
