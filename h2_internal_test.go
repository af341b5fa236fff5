package seoapi

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"io"
	"math/big"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHTTP2ResetDoesNotResendAWrite: net/http's HTTP/2 transport sends a
// request again from GetBody after the server resets its stream with
// PROTOCOL_ERROR, also when the server read it whole. A create is not sent
// again, through the built-in transport or a caller's: it ends in
// ErrOutcomeUnknown, and the server reads it once.
func TestHTTP2ResetDoesNotResendAWrite(t *testing.T) {
	t.Parallel()
	h2 := func(pool *x509.CertPool) *http.Transport {
		return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	}
	tests := []struct {
		name   string
		client func(t *testing.T, base string, pool *x509.CertPool) *Client
	}{
		{"built-in transport", func(t *testing.T, base string, pool *x509.CertPool) *Client {
			c, err := NewClient(base, "sk_test_0123456789abcdef", WithoutRateLimit())
			require.NoError(t, err)
			c.next = h2(pool)
			return c
		}},
		{"caller's transport", func(t *testing.T, base string, pool *x509.CertPool) *Client {
			hc := &http.Client{Transport: h2(pool)}
			c, err := NewClient(base, "sk_test_0123456789abcdef", WithoutRateLimit(), WithHTTPClient(hc))
			require.NoError(t, err)
			return c
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, pool, posts := startResettingH2(t)
			c := tt.client(t, base, pool)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang, measures nothing
			defer cancel()
			_, _, err := c.Workspaces.Create(ctx, &WorkspaceCreateRequest{Name: "once"})
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			require.EqualValues(t, 1, posts.Load(), "the server read the create more than once")
		})
	}
}

// startResettingH2 starts a TLS server that speaks HTTP/2 with
// serveResettingH2, and returns its base URL, the pool that trusts it and
// the count of requests it read whole.
func startResettingH2(t *testing.T) (string, *x509.CertPool, *atomic.Int32) {
	ln, pool := listenTLS(t, "h2")
	posts := new(atomic.Int32)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveResettingH2(conn, posts)
		}
	}()
	return "https://" + ln.Addr().String(), pool, posts
}

// serveResettingH2 speaks just enough HTTP/2 on conn: it resets the first
// request it reads whole with PROTOCOL_ERROR and answers any later one
// with 200 and a workspace.
func serveResettingH2(conn net.Conn, posts *atomic.Int32) {
	serveH2(conn, func(stream uint32) bool {
		if posts.Add(1) == 1 {
			writeFrame(conn, 3, 0, stream, []byte{0, 0, 0, 1}) // RST_STREAM PROTOCOL_ERROR
			return true
		}
		writeFrame(conn, 1, 4, stream, []byte{0x88}) // HEADERS :status 200
		writeFrame(conn, 0, 1, stream, []byte(`{"id":"w1","name":"once"}`))
		return true
	})
}

// serveH2 reads the client preface and HTTP/2 frames from conn, answers
// SETTINGS, and calls request with the stream of each request it has read
// whole, until request returns false or the connection ends.
func serveH2(conn net.Conn, request func(stream uint32) bool) {
	defer conn.Close()
	if _, err := io.ReadFull(conn, make([]byte, 24)); err != nil { // the client preface
		return
	}
	writeFrame(conn, 4, 0, 0, nil) // SETTINGS
	for {
		head := make([]byte, 9)
		if _, err := io.ReadFull(conn, head); err != nil {
			return
		}
		payload := make([]byte, int(head[0])<<16|int(head[1])<<8|int(head[2]))
		if _, err := io.ReadFull(conn, payload); err != nil {
			return
		}
		typ, flags, stream := head[3], head[4], binary.BigEndian.Uint32(head[5:])&0x7fffffff
		switch {
		case typ == 4 && flags&1 == 0:
			writeFrame(conn, 4, 1, 0, nil) // SETTINGS ACK
		case (typ == 0 || typ == 1) && flags&1 != 0: // DATA or HEADERS with END_STREAM: read whole
			if !request(stream) {
				return
			}
		}
	}
}

// writeFrame writes one HTTP/2 frame.
func writeFrame(w io.Writer, typ, flags byte, stream uint32, payload []byte) {
	head := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(head[5:], stream)
	w.Write(append(head, payload...)) //nolint:errcheck // the client sees a broken connection
}

// listenTLS listens on loopback with a self-signed certificate offering
// protos by ALPN, closed when the test ends, and returns the pool that
// trusts it.
func listenTLS(t *testing.T, protos ...string) (net.Listener, *x509.CertPool) {
	t.Helper()
	cert, pool := selfSignedCert(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: protos})
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	return ln, pool
}

// selfSignedCert returns a certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSignedCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// TestWriteAnsweredWithGarbageIsNotRepeated: an https server reads a whole
// create, acts on it, then writes bytes that are not a TLS record (an HTML
// page, as a broken middlebox does) and closes. The client's error is a
// tls.RecordHeaderError, which a failed handshake also gives; but the
// connection was had and the request written, so the create is not sent
// again: ErrConnection and ErrOutcomeUnknown, and the server read it once.
func TestWriteAnsweredWithGarbageIsNotRepeated(t *testing.T) {
	t.Parallel()
	for _, tt := range writeGateClients() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, pool, posts := startGarbageTLS(t)
			c := tt.client(t, base, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang, measures nothing
			defer cancel()
			_, _, err := c.Workspaces.Create(ctx, &WorkspaceCreateRequest{Name: "once"})
			require.ErrorIs(t, err, ErrConnection)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			require.ErrorAs(t, err, new(tls.RecordHeaderError))
			require.EqualValues(t, 1, posts.Load(), "the server read the create more than once")
		})
	}
}

// TestHTTP2RedialAfterAWriteIsNotRepeated: an HTTP/2 server reads a whole
// create, then sends GOAWAY saying it processed no stream, closes the
// connection and stops listening. net/http takes the stream for one to send
// again and dials anew; the dial is refused, so the attempt fails with a
// dial error although its request went out. The create is not sent again:
// ErrConnection and ErrOutcomeUnknown, and the server read it once.
func TestHTTP2RedialAfterAWriteIsNotRepeated(t *testing.T) {
	t.Parallel()
	for _, tt := range writeGateClients() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, pool, posts := startGoAwayH2(t)
			c := tt.client(t, base, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // bounds a hang, measures nothing
			defer cancel()
			_, _, err := c.Workspaces.Create(ctx, &WorkspaceCreateRequest{Name: "once"})
			require.ErrorIs(t, err, ErrConnection)
			require.ErrorIs(t, err, ErrOutcomeUnknown)
			var op *net.OpError
			require.ErrorAs(t, err, &op)
			require.Equal(t, "dial", op.Op, "the attempt ends with the refused redial")
			require.EqualValues(t, 1, posts.Load(), "the server read the create more than once")
		})
	}
}

// writeGateClients are the two ways a client sends: through the transport
// the SDK builds (here with rt's TLS settings) and through a caller's.
func writeGateClients() []struct {
	name   string
	client func(t *testing.T, base string, rt *http.Transport) *Client
} {
	return []struct {
		name   string
		client func(t *testing.T, base string, rt *http.Transport) *Client
	}{
		{"built-in transport", func(t *testing.T, base string, rt *http.Transport) *Client {
			c, err := NewClient(base, "sk_test_0123456789abcdef", WithoutRateLimit(), WithRetryWait(time.Millisecond, time.Millisecond))
			require.NoError(t, err)
			c.next = rt
			return c
		}},
		{"caller's transport", func(t *testing.T, base string, rt *http.Transport) *Client {
			hc := &http.Client{Transport: rt}
			c, err := NewClient(base, "sk_test_0123456789abcdef", WithoutRateLimit(), WithRetryWait(time.Millisecond, time.Millisecond), WithHTTPClient(hc))
			require.NoError(t, err)
			return c
		}},
	}
}

// startGarbageTLS starts an https server that reads each request whole,
// counts it, and answers with an HTML page outside the TLS layer.
func startGarbageTLS(t *testing.T) (string, *x509.CertPool, *atomic.Int32) {
	ln, pool := listenTLS(t)
	posts := new(atomic.Int32)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				if _, err := io.ReadAll(req.Body); err != nil {
					return
				}
				posts.Add(1)
				io.WriteString(conn.(*tls.Conn).NetConn(), "<html><body><h1>502 Bad Gateway</h1></body></html>\n") //nolint:errcheck // the client sees what arrives
			}()
		}
	}()
	return "https://" + ln.Addr().String(), pool, posts
}

// startGoAwayH2 starts an HTTP/2 server that accepts one connection and
// then stops listening; on it, it reads the first request whole, counts it,
// sends GOAWAY with last stream 0 and closes.
func startGoAwayH2(t *testing.T) (string, *x509.CertPool, *atomic.Int32) {
	ln, pool := listenTLS(t, "h2")
	posts := new(atomic.Int32)
	go func() {
		conn, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		serveH2(conn, func(uint32) bool {
			posts.Add(1)
			writeFrame(conn, 7, 0, 0, make([]byte, 8)) // GOAWAY: last stream 0, NO_ERROR
			return false
		})
	}()
	return "https://" + ln.Addr().String(), pool, posts
}

// TestHTTP2ResetDoesNotResendABodylessWrite: a POST without a body, sent
// with Client.Do, that net/http's HTTP/2 wrote whole and then saw reset is
// not sent again; net/http resends such a request without asking GetBody.
func TestHTTP2ResetDoesNotResendABodylessWrite(t *testing.T) {
	t.Parallel()
	base, pool, posts := startResettingH2(t)
	c, err := NewClient(base, "sk_test_0123456789abcdef", WithoutRateLimit())
	require.NoError(t, err)
	c.next = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	req, err := c.NewRequest(context.Background(), http.MethodPost, "api/workspaces", nil)
	require.NoError(t, err)
	_, err = c.Do(req, nil)
	require.ErrorIs(t, err, ErrConnection)
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	require.Equal(t, int32(1), posts.Load(), "the server read the POST once")
}
