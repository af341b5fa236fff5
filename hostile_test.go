package seoapi_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file drive every way a server or the network can fail
// a call (issue 8, "Every failure has exactly one kind" and "Retries and
// waits") and check what the caller gets: an *APIError of exactly one
// kind, ErrOutcomeUnknown exactly where a write may have taken effect, the
// underlying error reachable, and never a write sent twice.

// hostileTestKey authenticates the clients of the fault tests.
const hostileTestKey = "sk_test_hostile_0123456789"

// hostileRetries is the retry count the fault tests run with: a GET that
// is retried reaches the server 1+hostileRetries times.
const hostileRetries = 3

// hostileClient returns a client for baseURL with no client-side limiter,
// millisecond backoff and hostileRetries retries.
func hostileClient(t *testing.T, baseURL string, opts ...seoapi.Option) *seoapi.Client {
	t.Helper()
	return hostileClientLimited(t, baseURL, seoapi.WithoutRateLimit(), opts...)
}

// hostileClientLimited is hostileClient with the limiter option given.
func hostileClientLimited(t *testing.T, baseURL string, limiter seoapi.Option, opts ...seoapi.Option) *seoapi.Client {
	t.Helper()
	base := []seoapi.Option{
		limiter,
		seoapi.WithRetryWait(time.Millisecond, 5*time.Millisecond),
		seoapi.WithMaxRetries(hostileRetries),
	}
	c, err := seoapi.NewClient(baseURL, hostileTestKey, append(base, opts...)...)
	require.NoError(t, err)
	return c
}

// callMethod makes one call with method through a service method, so that
// the whole path of a call (NewRequest, Do, decoding) is exercised.
func callMethod(ctx context.Context, c *seoapi.Client, method string) (*seoapi.Response, error) {
	switch method {
	case http.MethodGet:
		_, resp, err := c.Workspaces.List(ctx, nil)
		return resp, err
	case http.MethodPost:
		_, resp, err := c.Workspaces.Create(ctx, &seoapi.WorkspaceCreateRequest{Name: "hostile"})
		return resp, err
	case http.MethodPatch:
		_, resp, err := c.Projects.Update(ctx, "ws_1", "proj_1", &seoapi.ProjectUpdateRequest{Name: seoapi.Ptr("renamed")})
		return resp, err
	case http.MethodDelete:
		return c.Projects.Delete(ctx, "ws_1", "proj_1")
	}
	panic("callMethod: no call for " + method)
}

// isWrite reports the methods whose repetition can do harm.
func isWrite(method string) bool { return method == http.MethodPost || method == http.MethodPatch }

// kindsOf returns every error kind err matches, the context errors
// included: the README promises exactly one.
func kindsOf(err error) []error {
	var out []error
	for _, k := range []error{
		seoapi.ErrInvalidArgument, seoapi.ErrUnauthorized, seoapi.ErrForbidden, seoapi.ErrNotFound,
		seoapi.ErrConflict, seoapi.ErrValidation, seoapi.ErrRateLimited, seoapi.ErrServer,
		seoapi.ErrConnection, seoapi.ErrUnexpectedResponse, context.Canceled, context.DeadlineExceeded,
	} {
		if errors.Is(err, k) {
			out = append(out, k)
		}
	}
	return out
}

// requireOneKind checks that err is an *APIError matching want and no
// other kind, and returns the *APIError.
func requireOneKind(t *testing.T, err error, want error) *seoapi.APIError {
	t.Helper()
	require.Error(t, err)
	var ae *seoapi.APIError
	require.ErrorAs(t, err, &ae, "every error of a call that was built is an *APIError: %v", err)
	require.Equal(t, []error{want}, kindsOf(err), "kinds matched by %v", err)
	assert.Equal(t, kindNames()[want], seoapi.ErrorType(err), "ErrorType names the one kind")
	return ae
}

// kindNames are the names ErrorType gives each kind.
func kindNames() map[error]string {
	return map[error]string{
		seoapi.ErrInvalidArgument: "invalid_argument", seoapi.ErrUnauthorized: "unauthorized",
		seoapi.ErrForbidden: "forbidden", seoapi.ErrNotFound: "not_found", seoapi.ErrConflict: "conflict",
		seoapi.ErrValidation: "validation", seoapi.ErrRateLimited: "rate_limited", seoapi.ErrServer: "server",
		seoapi.ErrConnection: "connection", seoapi.ErrUnexpectedResponse: "unexpected_response",
		context.Canceled: "canceled", context.DeadlineExceeded: "deadline_exceeded",
	}
}

// rawServer is a TCP server speaking just enough HTTP/1.1 to fail in the
// ways net/http never does: it cuts headers and bodies, resets, and
// swallows requests.
type rawServer struct {
	url      string
	requests atomic.Int32 // requests read whole: writes that reached the server
	conns    atomic.Int32 // connections accepted
	arrived  chan struct{}
}

// rawHandler serves one connection. readRequest reads one request whole
// and counts it.
type rawHandler func(s *rawServer, conn *net.TCPConn, br *bufio.Reader)

// startRaw serves handle on a loopback port until the test ends; every
// connection is closed then, so no handler outlives the test.
func startRaw(t *testing.T, handle rawHandler) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &rawServer{url: "http://" + ln.Addr().String(), arrived: make(chan struct{}, 16)}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer context.AfterFunc(ctx, func() { conn.Close() })()
				defer conn.Close()
				handle(s, conn.(*net.TCPConn), bufio.NewReader(conn))
			}()
		}
	}()
	t.Cleanup(func() {
		stop()
		ln.Close()
		wg.Wait()
	})
	return s
}

// readRequest reads one request, body included, counts it and reports
// its arrival on s.arrived (without blocking).
func (s *rawServer) readRequest(br *bufio.Reader) bool {
	req, err := http.ReadRequest(br)
	if err != nil {
		return false
	}
	if _, err := io.Copy(io.Discard, req.Body); err != nil {
		return false
	}
	s.requests.Add(1)
	select {
	case s.arrived <- struct{}{}:
	default:
	}
	return true
}

// refusedURL returns the URL of a loopback port nothing listens on.
func refusedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	return url
}

func resetNow(conn *net.TCPConn) {
	conn.SetLinger(0) // close with RST instead of FIN
	conn.Close()
}

// The faults a raw server can commit.

// resetBeforeRead resets the connection once the request's first bytes
// arrived, without reading it: the client got past connecting (a reset
// during the handshake is a dial error, and retried as one).
func resetBeforeRead(_ *rawServer, conn *net.TCPConn, br *bufio.Reader) {
	if _, err := br.Peek(1); err == nil {
		resetNow(conn)
	}
}

func resetAfterRead(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
	if s.readRequest(br) {
		resetNow(conn)
	}
}

func cutHeaders(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
	if s.readRequest(br) {
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: applic")
	}
}

// cutBody promises 100 bytes and sends 13.
func cutBody(status int) rawHandler {
	return func(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
		if s.readRequest(br) {
			fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"data\": [{\"", status, http.StatusText(status))
		}
	}
}

// afterRead reads the request, writes raw and hangs up.
func afterRead(raw string) rawHandler {
	return func(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
		if s.readRequest(br) {
			io.WriteString(conn, raw)
		}
	}
}

// trickle sends the headers and part of the body, then nothing: the
// attempt's timeout must cover reading the body.
func trickle(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
	if s.readRequest(br) {
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"data\": [")
		io.Copy(io.Discard, br) // until the client hangs up or the test ends
	}
}

// blackHole reads the request and never answers.
func blackHole(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
	if s.readRequest(br) {
		io.Copy(io.Discard, br) // until the client hangs up or the test ends
	}
}

// oversized answers 200 with a body of n bytes, with a Content-Length or
// chunked.
func oversized(n int, chunked bool) rawHandler {
	return func(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
		if !s.readRequest(br) {
			return
		}
		body := `{"data":"` + strings.Repeat("x", n-11) + `"}`
		if chunked {
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(body), body)
			return
		}
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
}

// TestEveryConnectionFaultHasOneKind drives each connection fault for a
// read, a create and an update, and checks the kind, ErrOutcomeUnknown,
// retries, the underlying error and that no write reached the server
// twice.
func TestEveryConnectionFaultHasOneKind(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name   string
		handle rawHandler // nil: nothing listens
		opts   []seoapi.Option
		kind   error
		// written: the request may have reached the server when the
		// fault hit, so a write's outcome is unknown.
		written bool
		// retried: a GET is tried again after this fault.
		retried bool
		// opError: errors.As finds the *net.OpError underneath.
		opError bool
		status  int  // of the response that was not usable
		capHit  bool // the error names the size cap
		// timeout: the attempt ends on the client's clock, so the server
		// may not even have accepted the connection yet. The timeout is
		// long enough for a loaded machine to connect and write first.
		timeout bool
	}{
		{name: "refused", kind: seoapi.ErrConnection, retried: true, opError: true},
		{name: "reset before the request is read", handle: resetBeforeRead, kind: seoapi.ErrConnection, written: true, retried: true, opError: true},
		{name: "reset after the request is read", handle: resetAfterRead, kind: seoapi.ErrConnection, written: true, retried: true, opError: true},
		{name: "headers cut", handle: cutHeaders, kind: seoapi.ErrConnection, written: true, retried: true},
		{name: "body cut", handle: cutBody(http.StatusOK), kind: seoapi.ErrConnection, written: true, retried: true},
		{name: "black hole", handle: blackHole, kind: seoapi.ErrConnection, written: true, retried: true, timeout: true,
			opts: []seoapi.Option{seoapi.WithHTTPClient(&http.Client{Timeout: 100 * time.Millisecond})}},
		{name: "body trickling past the attempt timeout", handle: trickle, kind: seoapi.ErrConnection, written: true, retried: true, timeout: true,
			opts: []seoapi.Option{seoapi.WithHTTPClient(&http.Client{Timeout: 100 * time.Millisecond})}},
		{name: "malformed chunked body", handle: afterRead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
			kind: seoapi.ErrConnection, written: true, retried: true},
		{name: "not HTTP", handle: afterRead("SSH-2.0-OpenSSH_9.6\r\n\r\n"), kind: seoapi.ErrConnection, written: true, retried: true},
		{name: "2xx not JSON", handle: rawAnswer(http.StatusOK, `<html>welcome</html>`, false), kind: seoapi.ErrUnexpectedResponse, status: 200},
		{name: "2xx over the size cap with a length", handle: oversized(1000, false), kind: seoapi.ErrUnexpectedResponse, status: 200, capHit: true,
			opts: []seoapi.Option{seoapi.WithMaxResponseBytes(100)}},
		{name: "2xx over the size cap chunked", handle: oversized(1000, true), kind: seoapi.ErrUnexpectedResponse, status: 200, capHit: true,
			opts: []seoapi.Option{seoapi.WithMaxResponseBytes(100)}},
	}
	for _, f := range faults {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch} {
			t.Run(f.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				var srv *rawServer
				url := ""
				if f.handle == nil {
					url = refusedURL(t)
				} else {
					srv = startRaw(t, f.handle)
					url = srv.url
				}
				c := hostileClient(t, url, f.opts...)

				_, err := callMethod(context.Background(), c, method)
				ae := requireOneKind(t, err, f.kind)

				unknown := isWrite(method) && f.written
				assert.Equal(t, unknown, errors.Is(err, seoapi.ErrOutcomeUnknown), "ErrOutcomeUnknown: %v", err)
				assert.Equal(t, method, ae.Method)
				assert.Equal(t, f.status, ae.StatusCode)
				if f.capHit {
					assert.Contains(t, err.Error(), "cap", "the error says the size cap was hit")
					assert.Contains(t, err.Error(), "100", "the error names the cap")
				}
				if f.opError {
					var op *net.OpError
					assert.ErrorAs(t, err, &op, "the network error stays reachable: %v", err)
				}

				// A write is tried again only when it cannot have reached
				// the server; a read whenever the fault may pass.
				attempts := 1
				if f.retried && (!isWrite(method) || !f.written) {
					attempts = 1 + hostileRetries
				}
				assert.Equal(t, attempts, ae.Attempts, "attempts")
				if srv != nil {
					if f.timeout {
						assert.LessOrEqual(t, srv.conns.Load(), int32(attempts), "connections the server saw")
					} else {
						assert.EqualValues(t, attempts, srv.conns.Load(), "connections the server saw")
					}
					if isWrite(method) {
						assert.LessOrEqual(t, srv.requests.Load(), int32(1), "a write reached the server twice")
					}
				}
			})
		}
	}
}

// statusKinds is the status-to-kind table of the README (kindOfStatus in
// errors.go), with whether a GET is retried after the status.
func statusKinds() []struct {
	status     int
	kind       error
	retriedGET bool
} {
	return []struct {
		status     int
		kind       error
		retriedGET bool
	}{
		{301, seoapi.ErrUnexpectedResponse, false},
		{302, seoapi.ErrUnexpectedResponse, false},
		{303, seoapi.ErrUnexpectedResponse, false},
		{307, seoapi.ErrUnexpectedResponse, false},
		{308, seoapi.ErrUnexpectedResponse, false},
		{400, seoapi.ErrValidation, false},
		{401, seoapi.ErrUnauthorized, false},
		{403, seoapi.ErrForbidden, false},
		{404, seoapi.ErrNotFound, false},
		{405, seoapi.ErrUnexpectedResponse, false},
		{406, seoapi.ErrUnexpectedResponse, false},
		{408, seoapi.ErrServer, true},
		{409, seoapi.ErrConflict, false},
		{410, seoapi.ErrNotFound, false},
		{412, seoapi.ErrConflict, false},
		{413, seoapi.ErrValidation, false},
		{415, seoapi.ErrUnexpectedResponse, false},
		{422, seoapi.ErrValidation, false},
		{429, seoapi.ErrRateLimited, true},
		{500, seoapi.ErrServer, true},
		{501, seoapi.ErrServer, false},
		{502, seoapi.ErrServer, true},
		{503, seoapi.ErrServer, true},
		{504, seoapi.ErrServer, true},
		// Statuses no API should send still have one kind.
		{300, seoapi.ErrUnexpectedResponse, false},
		{304, seoapi.ErrUnexpectedResponse, false},
		{418, seoapi.ErrUnexpectedResponse, false},
		{423, seoapi.ErrConflict, false},
		{451, seoapi.ErrForbidden, false},
		{507, seoapi.ErrServer, false},
		{599, seoapi.ErrServer, false},
		{600, seoapi.ErrUnexpectedResponse, false},
		{999, seoapi.ErrUnexpectedResponse, false},
	}
}

// countingServer is an httptest server answering every request with
// handle, counting requests per method.
type countingServer struct {
	*httptest.Server
	mu     sync.Mutex
	counts map[string]int
	auth   []string // Authorization of each request
}

func newCountingServer(t *testing.T, handle http.HandlerFunc) *countingServer {
	t.Helper()
	s := &countingServer{counts: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		s.mu.Lock()
		s.counts[r.Method+" "+r.URL.Path]++
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if handle != nil {
			handle(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// total returns how many requests arrived.
func (s *countingServer) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

func (s *countingServer) count(methodAndPath string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[methodAndPath]
}

// TestEveryStatusHasOneKind answers each status that matters to a read,
// a create and an update: each is an *APIError of the status's one kind,
// ErrOutcomeUnknown only for a 5xx answer to a write (whose effect it
// does not say), retried only where the README says, and a redirect is
// not followed to another origin.
func TestEveryStatusHasOneKind(t *testing.T) {
	t.Parallel()
	for _, tc := range statusKinds() {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch} {
			t.Run(strconv.Itoa(tc.status)+"/"+method, func(t *testing.T) {
				t.Parallel()
				elsewhere := newCountingServer(t, nil)
				srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
					if tc.status >= 300 && tc.status < 400 {
						w.Header().Set("Location", elsewhere.URL+"/api/workspaces")
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.status)
					fmt.Fprintf(w, `{"error":{"code":"c%d","message":"status %d"}}`, tc.status, tc.status)
				})
				c := hostileClient(t, srv.URL)

				_, err := callMethod(context.Background(), c, method)
				ae := requireOneKind(t, err, tc.kind)

				assert.Equal(t, tc.status, ae.StatusCode)
				// A 5xx answer to a write says nothing of its effect.
				unknown := isWrite(method) && tc.status >= 500 && tc.status <= 599
				assert.Equal(t, unknown, errors.Is(err, seoapi.ErrOutcomeUnknown), "only a 5xx to a write is an unknown outcome: %v", err)
				attempts := 1
				if tc.status == http.StatusTooManyRequests || (tc.retriedGET && !isWrite(method)) {
					attempts = 1 + hostileRetries
				}
				assert.Equal(t, attempts, ae.Attempts)
				assert.Equal(t, attempts, srv.total(), "requests the server saw")
				assert.Zero(t, elsewhere.total(), "a redirect to another origin was followed")
				switch {
				case tc.status >= 300 && tc.status < 400:
					assert.Equal(t, elsewhere.URL+"/api/workspaces", ae.Header.Get("Location"))
				default:
					assert.Equal(t, fmt.Sprintf("c%d", tc.status), ae.Code)
					assert.Equal(t, fmt.Sprintf("status %d", tc.status), ae.Message)
				}
			})
		}
	}
}

// TestCutOrOversizedErrorBodyKeepsItsStatus: a non-2xx whose body is cut
// or over the size cap is the *APIError of its status, with what was read
// (issue 8 item 6).
func TestCutOrOversizedErrorBodyKeepsItsStatus(t *testing.T) {
	t.Parallel()
	big := `{"error":{"code":"gone","message":"` + strings.Repeat("y", 1000) + `"}}`
	tests := []struct {
		name     string
		handle   rawHandler
		method   string
		opts     []seoapi.Option
		status   int
		kind     error
		body     string // what the server sent
		attempts int
	}{
		{name: "422 cut", handle: cutBody(422), method: http.MethodPost, status: 422, kind: seoapi.ErrValidation,
			body: `{"data": [{"`, attempts: 1},
		{name: "500 cut", handle: cutBody(500), method: http.MethodGet, status: 500, kind: seoapi.ErrServer,
			body: `{"data": [{"`, attempts: 1 + hostileRetries},
		{name: "404 over the cap", handle: rawAnswer(404, big, false), method: http.MethodGet, status: 404, kind: seoapi.ErrNotFound,
			body: big, attempts: 1, opts: []seoapi.Option{seoapi.WithMaxResponseBytes(64)}},
		{name: "404 over the cap chunked", handle: rawAnswer(404, big, true), method: http.MethodGet, status: 404, kind: seoapi.ErrNotFound,
			body: big, attempts: 1, opts: []seoapi.Option{seoapi.WithMaxResponseBytes(64)}},
		{name: "409 over the cap on a write", handle: rawAnswer(409, big, true), method: http.MethodPost, status: 409, kind: seoapi.ErrConflict,
			body: big, attempts: 1, opts: []seoapi.Option{seoapi.WithMaxResponseBytes(64)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, tc.handle)
			c := hostileClient(t, srv.url, tc.opts...)
			_, err := callMethod(context.Background(), c, tc.method)
			ae := requireOneKind(t, err, tc.kind)
			assert.Equal(t, tc.status, ae.StatusCode)
			assert.Equal(t, tc.attempts, ae.Attempts)
			require.NotEmpty(t, ae.Body, "what was read is kept")
			assert.True(t, strings.HasPrefix(tc.body, string(ae.Body)), "Body %q is what the server sent", ae.Body)
			if tc.status != 500 {
				assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "the server answered %d", tc.status)
			}
		})
	}
}

// rawAnswer answers every request on the connection with status and body,
// with a Content-Length or chunked, until the client hangs up.
func rawAnswer(status int, body string, chunked bool) rawHandler {
	return func(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
		for s.readRequest(br) {
			head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n", status, http.StatusText(status))
			if chunked {
				fmt.Fprintf(conn, "%sTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", head, len(body), body)
			} else {
				fmt.Fprintf(conn, "%sContent-Length: %d\r\n\r\n%s", head, len(body), body)
			}
		}
	}
}

// TestCutBodyIsAFailedAttempt: a GET whose body is cut is tried again and
// succeeds; a POST is not, and says its outcome is unknown (issue 8 item 7).
func TestCutBodyIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	t.Run("GET retried", func(t *testing.T) {
		t.Parallel()
		var first atomic.Bool
		srv := startRaw(t, func(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
			if first.CompareAndSwap(false, true) {
				cutBody(http.StatusOK)(s, conn, br)
				return
			}
			rawAnswer(http.StatusOK, `{"data":[{"id":"ws_1","name":"one"}]}`, false)(s, conn, br)
		})
		c := hostileClient(t, srv.url)
		list, resp, err := c.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "ws_1", list[0].ID)
		assert.Equal(t, 2, resp.Attempts)
		assert.EqualValues(t, 2, srv.requests.Load())
	})
	t.Run("POST not retried", func(t *testing.T) {
		t.Parallel()
		srv := startRaw(t, func(s *rawServer, conn *net.TCPConn, br *bufio.Reader) {
			cutBody(http.StatusCreated)(s, conn, br)
		})
		c := hostileClient(t, srv.url)
		_, _, err := c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "once"})
		ae := requireOneKind(t, err, seoapi.ErrConnection)
		assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
		assert.Equal(t, 1, ae.Attempts)
		assert.EqualValues(t, 1, srv.requests.Load(), "the create reached the server once")
	})
}

// observerFunc is an Observer written as a function.
type observerFunc func(context.Context, seoapi.Event) context.Context

func (f observerFunc) Observe(ctx context.Context, e seoapi.Event) context.Context { return f(ctx, e) }

// blockingLimiter holds every request until its context ends, and says
// when a request is waiting.
type blockingLimiter struct{ waiting chan struct{} }

func (l blockingLimiter) Wait(ctx context.Context) error {
	l.waiting <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

// TestContextEndingIsTheContextsError: a call whose context ends matches
// the context's error and no kind; a write that went out matches
// ErrOutcomeUnknown too, one held back by the limiter does not.
func TestContextEndingIsTheContextsError(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch} {
		t.Run("cancelled mid-request/"+method, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, blackHole)
			c := hostileClient(t, srv.url)
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-srv.arrived
				cancel()
			}()
			_, err := callMethod(ctx, c, method)
			requireOneKind(t, err, context.Canceled)
			assert.Equal(t, isWrite(method), errors.Is(err, seoapi.ErrOutcomeUnknown), "ErrOutcomeUnknown: %v", err)
			assert.EqualValues(t, 1, srv.requests.Load())
		})
		t.Run("deadline mid-request/"+method, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, blackHole)
			c := hostileClient(t, srv.url)
			ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
			defer cancel()
			_, err := callMethod(ctx, c, method)
			requireOneKind(t, err, context.DeadlineExceeded)
			assert.Equal(t, isWrite(method), errors.Is(err, seoapi.ErrOutcomeUnknown), "ErrOutcomeUnknown: %v", err)
			// The deadline runs on the client's clock: a loaded server may
			// not have read the request yet.
			assert.LessOrEqual(t, srv.requests.Load(), int32(1))
		})
		t.Run("cancelled while waiting to retry a 429/"+method, func(t *testing.T) {
			t.Parallel()
			srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Retry-After", "30")
				w.WriteHeader(http.StatusTooManyRequests)
			})
			ctx, cancel := context.WithCancel(context.Background())
			// Cancel once the client has the 429 and decided to wait.
			c := hostileClient(t, srv.URL, seoapi.WithObserver(observerFunc(func(ctx context.Context, e seoapi.Event) context.Context {
				if e.Type == seoapi.EventAttemptEnd && e.Retry {
					cancel()
				}
				return ctx
			})))
			_, err := callMethod(ctx, c, method)
			requireOneKind(t, err, context.Canceled)
			assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "the only attempt was refused with a 429: %v", err)
			assert.Equal(t, 1, srv.total())
		})
		t.Run("cancelled in the limiter/"+method, func(t *testing.T) {
			t.Parallel()
			srv := newCountingServer(t, nil)
			lim := blockingLimiter{waiting: make(chan struct{}, 1)}
			c := hostileClientLimited(t, srv.URL, seoapi.WithLimiter(waitFunc(lim.Wait)))
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-lim.waiting
				cancel()
			}()
			_, err := callMethod(ctx, c, method)
			requireOneKind(t, err, context.Canceled)
			assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "nothing was sent: %v", err)
			assert.Zero(t, srv.total())
		})
	}
}

// TestRetryAfterTooLongFailsFast: a Retry-After too long for the max wait,
// however absurd, fails at once with the wait asked for (issue 8 item 8):
// ErrRateLimited for a 429, ErrServer for a 503, whatever the method
// (issue 17 item 3).
func TestRetryAfterTooLongFailsFast(t *testing.T) {
	t.Parallel()
	for _, retryAfter := range []string{"1000000000", "1000000000000", "1" + strings.Repeat("0", 30), "Fri, 31 Dec 2999 23:59:59 GMT"} {
		for _, tc := range []struct {
			status int
			method string
		}{{503, http.MethodGet}, {429, http.MethodGet}, {429, http.MethodPost}} {
			t.Run(fmt.Sprintf("%d/%s/%.13s", tc.status, tc.method, retryAfter), func(t *testing.T) {
				t.Parallel()
				srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Retry-After", retryAfter)
					w.WriteHeader(tc.status)
				})
				c := hostileClient(t, srv.URL, seoapi.WithMaxWait(time.Hour))
				_, err := callMethod(context.Background(), c, tc.method)
				kind := seoapi.ErrRateLimited
				if tc.status == 503 {
					kind = seoapi.ErrServer
				}
				ae := requireOneKind(t, err, kind)
				assert.Equal(t, tc.status, ae.StatusCode)
				assert.GreaterOrEqual(t, ae.RetryAfter, 30*365*24*time.Hour)
				assert.Equal(t, 1, ae.Attempts)
				assert.Equal(t, 1, srv.total())
			})
		}
	}
}

// TestRetryAfterNowStillBacksOff: a Retry-After of 0 or in the past does
// not let retries hammer the server: attempts arrive at least the
// backoff minimum apart (issue 8 item 8).
func TestRetryAfterNowStillBacksOff(t *testing.T) {
	t.Parallel()
	const waitMin = 20 * time.Millisecond
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name, retryAfter string
		status           int
		method           string
	}{
		{"zero 503", "0", 503, http.MethodGet},
		{"past date 503", past, 503, http.MethodGet},
		{"zero 429 POST", "0", 429, http.MethodPost},
		{"past date 429 POST", past, 429, http.MethodPost},
		{"negative 503", "-5", 503, http.MethodGet},
		{"garbage 429 POST", "soon", 429, http.MethodPost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var arrivals []time.Time
			srv := newCountingServer(t, func(w http.ResponseWriter, _ *http.Request) {
				mu.Lock()
				arrivals = append(arrivals, time.Now())
				mu.Unlock()
				w.Header().Set("Retry-After", tc.retryAfter)
				w.WriteHeader(tc.status)
			})
			c := hostileClient(t, srv.URL, seoapi.WithRetryWait(waitMin, 2*waitMin))
			_, err := callMethod(context.Background(), c, tc.method)
			requireOneKind(t, err, map[int]error{503: seoapi.ErrServer, 429: seoapi.ErrRateLimited}[tc.status])
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, arrivals, 1+hostileRetries)
			for i := 1; i < len(arrivals); i++ {
				assert.GreaterOrEqual(t, arrivals[i].Sub(arrivals[i-1]), waitMin, "gap before attempt %d", i+1)
			}
		})
	}
}

// TestTLSFailuresAreConnectionErrors: a TLS handshake that fails is
// ErrConnection; nothing of the request was written, so a write's outcome
// is known and it may be tried again unless the failure is permanent (a
// certificate the client does not trust).
func TestTLSFailuresAreConnectionErrors(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodPatch} {
		t.Run("untrusted certificate/"+method, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int32
			srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
			srv.Config.ErrorLog = discardLog()
			t.Cleanup(srv.Close)
			c := hostileClient(t, srv.URL) // without srv.Client(): the certificate is not trusted
			_, err := callMethod(context.Background(), c, method)
			ae := requireOneKind(t, err, seoapi.ErrConnection)
			assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "nothing was written: %v", err)
			var cert *tls.CertificateVerificationError
			assert.ErrorAs(t, err, &cert)
			assert.Equal(t, 1, ae.Attempts, "a certificate is not retried")
			assert.Zero(t, requests.Load())
		})
		t.Run("closed during the handshake/"+method, func(t *testing.T) {
			t.Parallel()
			srv := startRaw(t, func(_ *rawServer, conn *net.TCPConn, br *bufio.Reader) {
				if _, err := br.Peek(1); err == nil { // the ClientHello arrived
					conn.Close()
				}
			})
			c := hostileClient(t, strings.Replace(srv.url, "http:", "https:", 1))
			_, err := callMethod(context.Background(), c, method)
			ae := requireOneKind(t, err, seoapi.ErrConnection)
			assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "nothing was written: %v", err)
			assert.Equal(t, 1+hostileRetries, ae.Attempts, "a request that was never written is tried again")
			assert.EqualValues(t, 1+hostileRetries, srv.conns.Load())
		})
	}
}

// discardLog keeps the TLS server's handshake errors out of the test output.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }

// callIDKey carries a call's number to the observer of
// TestConcurrentCallsKeepTheirOwnState.
type callIDKey struct{}

// attemptCounter counts the attempts each call reported, by call number.
type attemptCounter struct {
	mu     sync.Mutex
	starts map[int]int
	ends   map[int]int // the Attempt of EventCallEnd
}

func (o *attemptCounter) Observe(ctx context.Context, e seoapi.Event) context.Context {
	id, ok := ctx.Value(callIDKey{}).(int)
	if !ok {
		return ctx
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch e.Type {
	case seoapi.EventAttemptStart:
		o.starts[id]++
	case seoapi.EventCallEnd:
		o.ends[id] = e.Attempt
	}
	return ctx
}

// TestConcurrentCallsKeepTheirOwnState runs calls with different retry
// fates at once on one client: each reports its own attempts, in its
// error or response and to observers (the retry state is pooled).
func TestConcurrentCallsKeepTheirOwnState(t *testing.T) {
	t.Parallel()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodPost:
			w.WriteHeader(http.StatusServiceUnavailable)
		case http.MethodDelete:
			w.WriteHeader(http.StatusInternalServerError)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"proj_1","name":"renamed"}`)
		}
	})
	obs := &attemptCounter{starts: map[int]int{}, ends: map[int]int{}}
	c := hostileClient(t, srv.URL, seoapi.WithObserver(obs))
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}
	// What each method's call ends in, after how many attempts.
	want := map[string]int{http.MethodGet: 1 + hostileRetries, http.MethodPost: 1, http.MethodPatch: 1, http.MethodDelete: 1 + hostileRetries}

	const calls = 48
	got := make([]int, calls)
	var wg sync.WaitGroup
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.WithValue(context.Background(), callIDKey{}, i)
			resp, err := callMethod(ctx, c, methods[i%len(methods)])
			var ae *seoapi.APIError
			switch {
			case errors.As(err, &ae):
				got[i] = ae.Attempts
			case err == nil:
				got[i] = resp.Attempts
			default:
				got[i] = -1
			}
		}()
	}
	wg.Wait()

	obs.mu.Lock()
	defer obs.mu.Unlock()
	total := 0
	for i := range calls {
		m := methods[i%len(methods)]
		assert.Equal(t, want[m], got[i], "call %d (%s): attempts in its result", i, m)
		assert.Equal(t, want[m], obs.starts[i], "call %d (%s): attempts observed", i, m)
		assert.Equal(t, want[m], obs.ends[i], "call %d (%s): attempts at call end", i, m)
		total += want[m]
	}
	assert.Equal(t, total, srv.total(), "requests the server saw")
}

// TestRetriedWriteResendsTheWholeBody: a create retried after a 429 sends
// its whole body again, whether the SDK built the request or the caller
// did with a body that cannot be rewound.
func TestRetriedWriteResendsTheWholeBody(t *testing.T) {
	t.Parallel()
	const body = `{"name":"resent"}`
	tests := []struct {
		name string
		call func(c *seoapi.Client) error
	}{
		{"service method", func(c *seoapi.Client) error {
			_, _, err := c.Workspaces.Create(context.Background(), &seoapi.WorkspaceCreateRequest{Name: "resent"})
			return err
		}},
		{"caller's request without GetBody", func(c *seoapi.Client) error {
			req, err := c.NewRequest(context.Background(), http.MethodPost, "api/workspaces", nil)
			if err != nil {
				return err
			}
			req.Body = io.NopCloser(strings.NewReader(body))
			req.ContentLength = int64(len(body))
			req.GetBody = nil
			_, err = c.Do(req, nil)
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, string(b))
				first := len(bodies) == 1
				mu.Unlock()
				if first {
					w.Header().Set("Retry-After", "0")
					w.WriteHeader(http.StatusTooManyRequests)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				io.WriteString(w, `{"id":"ws_2","name":"resent"}`)
			}))
			t.Cleanup(srv.Close)
			c := hostileClient(t, srv.URL)
			require.NoError(t, tc.call(c))
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{body, body}, bodies)
		})
	}
}

// TestHTTP2StreamFaults: over HTTP/2 a stream reset after the request was
// read, or a body cut by a reset, is a connection failure like its
// HTTP/1.1 counterpart: a GET is retried, a write is not and says its
// outcome is unknown.
func TestHTTP2StreamFaults(t *testing.T) {
	t.Parallel()
	faults := []struct {
		name  string
		serve func(w http.ResponseWriter)
	}{
		{"stream reset after the request was read", func(http.ResponseWriter) { panic(http.ErrAbortHandler) }},
		{"body cut by a stream reset", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			io.WriteString(w, `{"data": [{"`)
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}},
	}
	for _, f := range faults {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(f.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				var requests atomic.Int32
				var proto atomic.Value
				srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					requests.Add(1)
					proto.Store(r.Proto)
					f.serve(w)
				}))
				srv.EnableHTTP2 = true
				srv.Config.ErrorLog = discardLog()
				srv.StartTLS()
				t.Cleanup(srv.Close)
				c := hostileClient(t, srv.URL, seoapi.WithHTTPClient(srv.Client()))

				_, err := callMethod(context.Background(), c, method)
				ae := requireOneKind(t, err, seoapi.ErrConnection)
				require.Equal(t, "HTTP/2.0", proto.Load())
				assert.Equal(t, isWrite(method), errors.Is(err, seoapi.ErrOutcomeUnknown), "ErrOutcomeUnknown: %v", err)
				attempts := 1
				if !isWrite(method) {
					attempts = 1 + hostileRetries
				}
				assert.Equal(t, attempts, ae.Attempts)
				assert.EqualValues(t, attempts, requests.Load(), "requests the server read")
			})
		}
	}
}

// TestObserversCannotBreakTheGuarantees: an observer that returns a
// context of its own (here a fresh one, dropping everything the SDK put in
// the caller's) changes nothing about what the SDK promises: a write that
// may have landed is not repeated, and cancelling the caller's context
// still ends the call.
func TestObserversCannotBreakTheGuarantees(t *testing.T) {
	t.Parallel()
	rude := observerFunc(func(context.Context, seoapi.Event) context.Context { return context.Background() })
	panicky := observerFunc(func(context.Context, seoapi.Event) context.Context { panic("observer bug") })
	t.Run("a panicking observer", func(t *testing.T) {
		t.Parallel()
		srv := startRaw(t, resetAfterRead)
		c := hostileClient(t, srv.url, seoapi.WithObserver(panicky))
		_, err := callMethod(context.Background(), c, http.MethodPost)
		ae := requireOneKind(t, err, seoapi.ErrConnection)
		assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
		assert.Equal(t, 1, ae.Attempts)
		assert.EqualValues(t, 1, srv.requests.Load(), "the create reached the server more than once")
	})
	t.Run("write not repeated", func(t *testing.T) {
		t.Parallel()
		srv := startRaw(t, resetAfterRead)
		c := hostileClient(t, srv.url, seoapi.WithObserver(rude))
		_, err := callMethod(context.Background(), c, http.MethodPost)
		ae := requireOneKind(t, err, seoapi.ErrConnection)
		assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
		assert.Equal(t, 1, ae.Attempts)
		assert.EqualValues(t, 1, srv.requests.Load(), "the create reached the server more than once")
	})
	t.Run("cancel still ends the call", func(t *testing.T) {
		t.Parallel()
		srv := startRaw(t, blackHole)
		// The per-attempt timeout only bounds the test if cancelling is lost.
		c := hostileClient(t, srv.url, seoapi.WithObserver(rude), seoapi.WithMaxRetries(0),
			seoapi.WithHTTPClient(&http.Client{Timeout: 2 * time.Second}))
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-srv.arrived
			cancel()
		}()
		_, err := callMethod(ctx, c, http.MethodPost)
		requireOneKind(t, err, context.Canceled)
		assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
	})
}

// brokenLimiter fails every wait with err.
type brokenLimiter struct{ err error }

func (l brokenLimiter) Wait(context.Context) error { return l.err }

// TestLimiterFailureHasOneKind: a Limiter that fails (a fleet limiter
// whose store is down, one that refuses a wait) ends the call before
// anything is sent, with one kind and its error reachable.
func TestLimiterFailureHasOneKind(t *testing.T) {
	t.Parallel()
	storeDown := errors.New("limiter store unreachable")
	opErr := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	tests := []struct {
		name string
		err  error
		kind error
	}{
		{"plain error", storeDown, seoapi.ErrConnection},
		{"network error", fmt.Errorf("redis: %w", opErr), seoapi.ErrConnection},
		{"its own timeout", fmt.Errorf("redis: %w", context.DeadlineExceeded), seoapi.ErrConnection},
		{"its own cancel", fmt.Errorf("redis: %w", context.Canceled), seoapi.ErrConnection},
		{"refused wait", nil, seoapi.ErrRateLimited},
		{"two kinds at once", errors.Join(seoapi.ErrServer, seoapi.ErrNotFound), seoapi.ErrServer},
	}
	for _, tc := range tests {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				limErr := tc.err
				if limErr == nil {
					limErr = seoapi.RefuseWait(time.Hour, "fleet limit: wait of 1h0m0s exceeds the max wait of 1m0s (WithMaxWait)")
				}
				srv := newCountingServer(t, nil)
				c := hostileClientLimited(t, srv.URL, seoapi.WithLimiter(waitFunc(brokenLimiter{limErr}.Wait)))
				_, err := callMethod(context.Background(), c, method)
				ae := requireOneKind(t, err, tc.kind)
				assert.False(t, errors.Is(err, seoapi.ErrOutcomeUnknown), "nothing was sent: %v", err)
				assert.Zero(t, ae.StatusCode)
				assert.Zero(t, srv.total(), "a request went out past a failed limiter")
				assert.ErrorIs(t, err, limErr, "the limiter's error stays reachable")
			})
		}
	}
}

// roundTripFunc is a caller's own http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestCallersTransportFailures: errors from a transport the caller gave
// with WithHTTPClient (a proxy client, a recording layer, another HTTP
// stack) have one kind, and a write that transport may have sent is not
// repeated: the SDK cannot see inside it, so it must assume the worst.
func TestCallersTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
	}{
		{"plain error", errors.New("proxy: upstream connection reset")},
		{"its own timeout", fmt.Errorf("proxy: %w", context.DeadlineExceeded)},
		{"a kind inside", fmt.Errorf("proxy: %w", seoapi.ErrNotFound)},
	}
	for _, tc := range tests {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(tc.name+"/"+method, func(t *testing.T) {
				t.Parallel()
				var sent atomic.Int32
				rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
					if r.Body != nil {
						io.Copy(io.Discard, r.Body)
					}
					sent.Add(1) // this transport sent the request on its own
					return nil, tc.err
				})
				c := hostileClient(t, "http://127.0.0.1:1", seoapi.WithHTTPClient(&http.Client{Transport: rt}))
				_, err := callMethod(context.Background(), c, method)
				ae := requireOneKind(t, err, seoapi.ErrConnection)
				assert.ErrorIs(t, err, tc.err, "the transport's error stays reachable")
				assert.Equal(t, isWrite(method), errors.Is(err, seoapi.ErrOutcomeUnknown), "ErrOutcomeUnknown: %v", err)
				attempts := 1 + hostileRetries
				if isWrite(method) {
					attempts = 1
				}
				assert.Equal(t, attempts, ae.Attempts)
				assert.EqualValues(t, attempts, sent.Load(), "requests the caller's transport sent")
			})
		}
	}
}
