package seoapitest

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// FaultRates are the fractions of requests that meet a random fault. Each
// is a number from 0 (never) to 1 (always).
type FaultRates struct {
	// Fail is the fraction of requests answered 503 with "Retry-After: 1"
	// before they are handled, as FailNext answers them.
	Fail float64
	// Drop is the fraction of writes carried out (a POST, PATCH or DELETE
	// that the fake answers with a 2xx status) whose answer is lost: the
	// connection closes without one, as DropNext(1, true) closes it.
	Drop float64
}

// SetFaultRates makes random requests fail or lose their answer, from now
// on; the zero FaultRates stops it. A request that takes a fault queued by
// FailNext or DropNext meets no random one. Whether a request meets one is
// drawn from the random source of SetRandSeed: a run whose requests arrive
// in the same order meets the same faults. It panics when a rate is not a
// number from 0 to 1.
func (s *Server) SetFaultRates(r FaultRates) {
	for _, rate := range []float64{r.Fail, r.Drop} {
		if !(rate >= 0 && rate <= 1) {
			panic(fmt.Sprintf("seoapitest: SetFaultRates: %v is not a rate from 0 to 1", rate))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rates = r
}

// SetRandSeed restarts the random source of SetFaultRates from seed, so
// that a run can be replayed. A new Server's source has a random seed.
func (s *Server) SetRandSeed(seed uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rng = newRand(seed)
}

// newRand returns the random source of SetFaultRates for seed.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, math.MaxUint64-seed))
}

// randomFailure draws whether a request without a queued fault is
// answered 503; callers hold s.mu.
func (s *Server) randomFailure() (fault, bool) {
	if !s.draw(s.rates.Fail) {
		return fault{}, false
	}
	return fault{kind: faultStatus, status: http.StatusServiceUnavailable, header: http.Header{"Retry-After": {"1"}}}, true
}

// randomDrop draws whether the answer of a handled request is lost; only
// writes answered with a 2xx status draw. Callers hold s.mu.
func (s *Server) randomDrop(method string, status int) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodDelete:
		return status >= 200 && status < 300 && s.draw(s.rates.Drop)
	}
	return false
}

// draw reports true with probability rate. A rate of 0 or 1 takes no
// number from the source; callers hold s.mu.
func (s *Server) draw(rate float64) bool {
	switch {
	case rate <= 0:
		return false
	case rate >= 1:
		return true
	}
	return s.rng.Float64() < rate
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
