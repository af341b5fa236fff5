package seoapi

import (
	"context"
	"net"
	"net/http"
	"time"
)

// newStallTransport is the transport of the HTTP client the SDK builds
// itself. It fails an attempt with no connection, no response headers, or
// no progress reading or writing for d: no timer or context per attempt,
// and a large body that keeps arriving is never cut off.
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
