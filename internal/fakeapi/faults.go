package fakeapi

import (
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

// FailNext answers the next n requests with status and header, before
// authentication and without touching any record.
func (s *Server) FailNext(n, status int, header http.Header) {
	s.addFaults(n, fault{kind: faultStatus, status: status, header: header})
}

// DropNext closes the connection of the next n requests without an answer:
// before handling them when afterRead is false, or after handling them
// (the request took effect) when it is true.
func (s *Server) DropNext(n int, afterRead bool) {
	kind := faultDropBeforeRead
	if afterRead {
		kind = faultDropAfterRead
	}
	s.addFaults(n, fault{kind: kind})
}

// SetDelay delays every response by d.
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

// apply carries the fault out and reports whether the request is answered.
func (f fault) apply(w http.ResponseWriter, r *http.Request, s *Server) bool {
	switch f.kind {
	case faultStatus:
		for k, v := range f.header {
			w.Header()[k] = v
		}
		writeError(w, f.status, "injected_fault", http.StatusText(f.status))
	case faultDropAfterRead:
		s.mu.Lock()
		s.serveLocked(discard{header: http.Header{}}, r)
		s.mu.Unlock()
		hangUp(w)
	case faultDropBeforeRead:
		hangUp(w)
	}
	return true
}

// hangUp closes the connection without writing a response.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	conn.Close()
}

// discard is a ResponseWriter that throws the response away.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(b []byte) (int, error) { return len(b), nil }
func (d discard) WriteHeader(int)             {}
