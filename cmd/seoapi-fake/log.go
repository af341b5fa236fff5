package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// logRequests writes one line per request to w: when, method, path and
// query, status, duration and the fake's request ID. Headers and bodies
// are never logged, and the key is masked should a client put it in the
// URL.
func logRequests(next http.Handler, key string, w io.Writer) http.Handler {
	var mu sync.Mutex // one line at a time
	mask := strings.NewReplacer(key, "[REDACTED]")
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sr := &statusRecorder{ResponseWriter: rw}
		next.ServeHTTP(sr, r)
		status := fmt.Sprint(sr.status)
		if sr.hijacked {
			status = "dropped"
		}
		line := fmt.Sprintf("%s %s %s %s %s %s\n", start.UTC().Format(time.RFC3339Nano), r.Method, r.URL.RequestURI(), status,
			time.Since(start).Round(time.Microsecond), rw.Header().Get("X-Request-Id"))
		mu.Lock()
		defer mu.Unlock()
		io.WriteString(w, mask.Replace(line)) //nolint:errcheck // a log that cannot be written is not a reason to fail the request.
	})
}

// statusRecorder remembers the status written, and passes hijacking on so
// that the fake can still drop connections.
type statusRecorder struct {
	http.ResponseWriter
	status   int
	hijacked bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, http.ErrNotSupported
	}
	s.hijacked = true
	return hj.Hijack()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
