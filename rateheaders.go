package seoapi

import (
	"cmp"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Rate is what the server said about its rate limit in the response.
type Rate struct {
	Limit     int       // requests allowed in the server's window
	Remaining int       // requests left in the window
	Reset     time.Time // when the window resets; zero when not sent
}

// rateHeaders is what a response's headers say, read once per response.
type rateHeaders struct {
	rate      Rate
	requestID string
	exhausted bool          // no requests remain until a reset still ahead
	wait      time.Duration // the wait asked for: Retry-After, else an exhausted limit's reset
	asked     bool          // the server asked for wait
}

// readRateHeaders reads h, whose values are already cleaned of the key.
// A reset is a Unix time when over a billion seconds (no window is 31
// years long) and at most 1e12, else read as a Retry-After is; any other
// value is ignored.
func readRateHeaders(h http.Header, now time.Time) rateHeaders {
	r := rateHeaders{requestID: cmp.Or(h.Get("X-Request-Id"), h.Get("Request-Id"))}
	for _, prefix := range [...]string{"X-Ratelimit-", "Ratelimit-"} { // canonical keys
		remaining, ok := headerInt(h, prefix+"Remaining")
		if !ok {
			continue
		}
		r.rate.Remaining = remaining
		r.rate.Limit, _ = headerInt(h, prefix+"Limit")
		reset := h.Get(prefix + "Reset")
		secs, err := strconv.ParseFloat(strings.TrimSpace(reset), 64)
		d, ok := parseRetryAfter(reset, now)
		switch {
		case err == nil && secs > 1e9 && secs <= 1e12:
			r.rate.Reset = time.UnixMicro(int64(secs * 1e6))
		case ok && d <= 1e9*time.Second: // the monotonic reading is for comparisons, not for a printed Reset
			r.rate.Reset = now.Add(d).Round(0)
		}
		break
	}
	r.exhausted = r.rate.Remaining <= 0 && r.rate.Reset.After(now)
	r.wait, r.asked = parseRetryAfter(h.Get("Retry-After"), now)
	if !r.asked && r.exhausted {
		r.wait, r.asked = r.rate.Reset.Sub(now), true
	}
	return r
}

// headerInt reads an integer header; of a structured-field value such as
// "100;w=3600" it reads the number.
func headerInt(h http.Header, key string) (int, bool) {
	v, _, _ := strings.Cut(h.Get(key), ";")
	v, _, _ = strings.Cut(v, ",")
	if v = strings.TrimSpace(v); v == "" {
		return 0, false // absent: no error value to build
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// parseRetryAfter reads a Retry-After value: seconds (a fraction is
// accepted) or an HTTP date; a date past is 0. Seconds too many for a
// time.Duration are the longest one, for a caller to refuse as too long.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v = strings.TrimSpace(v); v == "" {
		return 0, false // absent: no error value to build
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case !(secs >= 0): // negative or NaN
			return 0, false
		case secs >= math.MaxInt64/float64(time.Second):
			return math.MaxInt64, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// hold is what the response tells the limiter, if anything: a 429 with a
// wait, or no requests remaining until a reset ahead, asks for a hold (at
// most maxHold); requests remaining, on any other status, lift it.
func (r *rateHeaders) hold(status int, now time.Time) (f RateFeedback, ok bool) {
	switch {
	case status == http.StatusTooManyRequests && r.asked && r.wait > 0:
		// Asked without Retry-After, the limit is exhausted: the same hold.
		return RateFeedback{Hold: min(r.wait, maxHold)}, true
	case r.exhausted:
		return RateFeedback{Hold: min(r.rate.Reset.Sub(now), maxHold)}, true
	case r.rate.Remaining > 0 && status != http.StatusTooManyRequests:
		return RateFeedback{Lift: true}, true
	}
	return RateFeedback{}, false
}
