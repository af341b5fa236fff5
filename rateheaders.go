package seoapi

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// parseRetryAfter reads a Retry-After value: seconds (a fraction is
// accepted) or an HTTP date; a date in the past is 0. A number of seconds
// too large for a time.Duration is the largest one, so that a caller
// refuses it as too long instead of ignoring it.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) {
			return 0, false
		}
		if secs >= math.MaxInt64/float64(time.Second) {
			return math.MaxInt64, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Rate is what the server said about its rate limit in the response.
type Rate struct {
	Limit     int       // requests allowed in the server's window
	Remaining int       // requests left in the window
	Reset     time.Time // when the window resets; zero when not sent
}

// exhausted reports whether the server said no requests remain until a
// reset still ahead. Reset is only read when Remaining was sent.
func (r Rate) exhausted(now time.Time) bool {
	return r.Remaining <= 0 && r.Reset.After(now)
}

// unixThreshold separates a Reset given as seconds from now from one given
// as a Unix time: no window is a billion seconds (31 years) long.
const unixThreshold = 1e9

// parseRate reads X-RateLimit-Limit/Remaining/Reset, or the same without
// the X- prefix. Reset is seconds from now, or a Unix time when it is
// larger than unixThreshold.
func parseRate(h http.Header, now time.Time) Rate {
	// The canonical names, spelled out so that reading them builds no
	// strings.
	rateHeaders := [...]struct{ limit, remaining, reset string }{
		{"X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset"},
		{"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"},
	}
	var r Rate
	for _, names := range rateHeaders {
		remaining, ok := headerInt(h, names.remaining)
		if !ok {
			continue
		}
		r.Remaining = remaining
		r.Limit, _ = headerInt(h, names.limit)
		r.Reset = parseReset(h.Get(names.reset), now)
		return r
	}
	return r
}

func headerInt(h http.Header, key string) (int, bool) {
	v := strings.TrimSpace(h.Get(key))
	if v == "" {
		return 0, false
	}
	// A structured-field value such as "100;w=3600" carries the number first.
	if i := strings.IndexAny(v, ";,"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return n, true
}

func parseReset(v string, now time.Time) time.Time {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Time{}
	}
	if f > unixThreshold {
		if f > 1e12 { // beyond the year 33658: not a time
			return time.Time{}
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9))
	}
	return now.Add(time.Duration(f * float64(time.Second)))
}
