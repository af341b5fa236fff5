package seoapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stallClient is a client whose own transport gives up after d without
// progress.
func stallClient(t *testing.T, url string, d time.Duration) *Client {
	t.Helper()
	c, err := NewClient(url, "sk_test_stall", WithoutRateLimit(), WithMaxRetries(0),
		WithHTTPClient(&http.Client{Transport: newStallTransport(d)}))
	require.NoError(t, err)
	return c
}

func TestStallTransportFailsAStalledBody(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		w.Write([]byte(`[{"id":"1"}`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	c := stallClient(t, srv.URL, 150*time.Millisecond)
	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, ErrConnection)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "no context ended")
}

func TestStallTransportLetsASlowBodyThrough(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		// 12 pieces 150 ms apart: 1.8 s in all, nearly twice the stall
		// timeout, but never a stall.
		for _, piece := range []string{`[`, `{"id"`, `:"1"}`, `,`, `{"id"`, `:"2"}`, `,`, `{"id"`, `:"3"`, `}`, ` `, `]`} {
			w.Write([]byte(piece))
			w.(http.Flusher).Flush()
			time.Sleep(150 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	c := stallClient(t, srv.URL, time.Second)
	list, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, list, 3)
}

func TestStallTransportBoundsTheWaitForHeaders(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	c := stallClient(t, srv.URL, 150*time.Millisecond)
	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, ErrConnection)
}

func TestReadCappedKeepsMemoryUnderTheCap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		size, length  int64 // length -1: unknown
		limit         int64
		wantErr       bool
		wantKeptBytes int64
	}{
		{"known, under", 1000, 1000, 4096, false, 1000},
		{"unknown, under", 1000, -1, 4096, false, 1000},
		{"unknown, exactly the cap", 4096, -1, 4096, false, 4096},
		{"unknown, over", 10000, -1, 4096, true, 4096},
		{"known, over", 10000, 10000, 4096, true, 4096},
		{"unknown, large under", 3 << 20, -1, 4 << 20, false, 3 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := make([]byte, tt.size)
			for i := range body {
				body[i] = byte('a' + i%26)
			}
			data, err := readCapped(bytesReader(body), tt.length, tt.limit)
			if tt.wantErr {
				require.ErrorIs(t, err, errBodyTooLarge)
			} else {
				require.NoError(t, err)
			}
			require.Len(t, data, int(tt.wantKeptBytes))
			assert.Equal(t, body[:tt.wantKeptBytes], data)
		})
	}
}

// bytesReader hides the type of its reader so readCapped cannot use it.
func bytesReader(b []byte) *onlyReader { return &onlyReader{b: b} }

type onlyReader struct{ b []byte }

func (r *onlyReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
