package seoapitest

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// window holds the arrival times of the requests a key had admitted in the
// last hour, oldest first.
type window struct {
	hits []time.Time
}

// admit applies the limits to one request of the key and sets the
// rate-limit headers. It answers 429 and returns false when either strict
// rolling window is full. Callers hold s.mu.
func (s *Server) admit(w http.ResponseWriter, secret string) bool {
	if s.limits.PerSecond <= 0 && s.limits.PerHour <= 0 {
		return true
	}
	now := s.now()
	win := s.windows[secret]
	if win == nil {
		win = &window{}
		s.windows[secret] = win
	}
	win.expire(now)
	if wait, full := win.full(now, s.limits); full {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
		s.setRateHeaders(w, win, now)
		writeError(w, http.StatusTooManyRequests, "rate_limited", fmt.Sprintf("rate limit exceeded; retry in %s", wait.Round(time.Millisecond)))
		return false
	}
	win.hits = append(win.hits, now)
	s.setRateHeaders(w, win, now)
	return true
}

// expire drops the hits older than an hour.
func (win *window) expire(now time.Time) {
	cut := sort.Search(len(win.hits), func(i int) bool { return now.Sub(win.hits[i]) < time.Hour })
	if cut > 0 {
		win.hits = append(win.hits[:0], win.hits[cut:]...)
	}
}

// full reports whether one more request now would exceed a limit, and how
// long until it would not.
func (win *window) full(now time.Time, l Limits) (time.Duration, bool) {
	if l.PerHour > 0 && len(win.hits) >= l.PerHour {
		return win.hits[len(win.hits)-l.PerHour].Add(time.Hour).Sub(now), true
	}
	if l.PerSecond > 0 {
		inSecond := len(win.hits) - sort.Search(len(win.hits), func(i int) bool { return now.Sub(win.hits[i]) < time.Second })
		if inSecond >= l.PerSecond {
			oldest := win.hits[len(win.hits)-l.PerSecond]
			return oldest.Add(time.Second).Sub(now), true
		}
	}
	return 0, false
}

func (s *Server) setRateHeaders(w http.ResponseWriter, win *window, now time.Time) {
	if s.limits.PerHour <= 0 {
		return
	}
	remaining := max(s.limits.PerHour-len(win.hits), 0)
	reset := 0
	if len(win.hits) > 0 {
		reset = int(math.Ceil(win.hits[0].Add(time.Hour).Sub(now).Seconds()))
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.limits.PerHour))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("X-RateLimit-Reset", strconv.Itoa(reset))
}
