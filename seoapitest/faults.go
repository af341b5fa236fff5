package seoapitest

import (
	"fmt"
	"net/http"
	"time"
)

type faultKind int

const (
	faultStatus faultKind = iota
	faultDropBeforeRead
	faultDropAfterRead
)

type fault struct {
	kind   faultKind
	status int
	header http.Header
}

// FailNext answers the next n requests with status and a copy of header,
// before authentication and without touching any record. The body is the
// fake's error JSON with code "injected_fault". A Retry-After in header is
// how a test asks the client to wait.
func (s *Server) FailNext(n, status int, header http.Header) {
	s.addFaults(n, fault{kind: faultStatus, status: status, header: header.Clone()})
}

// DropNext closes the connection of the next n requests without an
// answer: before handling them when afterRead is false (nothing happened),
// or after handling them when it is true (the request took effect, as when
// a network cuts the answer of a write that succeeded).
func (s *Server) DropNext(n int, afterRead bool) {
	kind := faultDropBeforeRead
	if afterRead {
		kind = faultDropAfterRead
	}
	s.addFaults(n, fault{kind: kind})
}

// SetDelay holds every answer for d, from now on; 0 stops it.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

func (s *Server) addFaults(n int, f fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.faults = append(s.faults, f)
	}
}

// takeFault pops the next fault; callers hold s.mu.
func (s *Server) takeFault() (fault, bool) {
	if len(s.faults) == 0 {
		return fault{}, false
	}
	f := s.faults[0]
	s.faults = s.faults[1:]
	return f, true
}

// answer writes the injected status.
func (f fault) answer(w http.ResponseWriter) {
	for k, v := range f.header {
		w.Header()[k] = v
	}
	status := f.status
	if status < 100 || status > 999 {
		// net/http refuses other codes; say so instead of panicking.
		status = http.StatusInternalServerError
	}
	writeError(w, status, "injected_fault", fmt.Sprintf("injected fault: %d %s", f.status, http.StatusText(f.status)))
}

// hangUp closes the connection without writing a response.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		// HTTP/2 and recorders cannot be hijacked; aborting the handler
		// is net/http's way to reset the stream without an answer.
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}
