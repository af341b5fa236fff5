package seoapi

import (
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

// exhausted reports whether the server said no requests remain until a
// reset still ahead.
func (r Rate) exhausted(now time.Time) bool {
	return r.Remaining <= 0 && r.Reset.After(now)
}

// rateHeaderNames are the names parseRate reads, spelled canonically so
// that reading them builds no strings.
var rateHeaderNames = [...][3]string{
	{"X-Ratelimit-Remaining", "X-Ratelimit-Limit", "X-Ratelimit-Reset"},
	{"Ratelimit-Remaining", "Ratelimit-Limit", "Ratelimit-Reset"},
}

// parseRate reads X-RateLimit-Remaining, -Limit and -Reset, or the same
// without the X- prefix.
func parseRate(h http.Header, now time.Time) Rate {
	for _, names := range rateHeaderNames {
		if remaining, ok := headerInt(h, names[0]); ok {
			limit, _ := headerInt(h, names[1])
			return Rate{Limit: limit, Remaining: remaining, Reset: parseReset(h.Get(names[2]), now)}
		}
	}
	return Rate{}
}

// headerInt reads an integer header; of a structured-field value such as
// "100;w=3600" it reads the number first.
func headerInt(h http.Header, key string) (int, bool) {
	v, _, _ := strings.Cut(h.Get(key), ";")
	v, _, _ = strings.Cut(v, ",")
	n, err := strconv.Atoi(strings.TrimSpace(v))
	return n, err == nil
}

// parseReset reads a reset as seconds from now, or as a Unix time when it
// is more than a billion seconds (no window is 31 years long).
func parseReset(v string, now time.Time) time.Time {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch {
	case err != nil || f < 0 || f > 1e12 || math.IsNaN(f): // 1e12: beyond the year 33658
		return time.Time{}
	case f > 1e9:
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9))
	}
	return now.Add(time.Duration(f * float64(time.Second)))
}

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
		switch {
		case secs < 0 || math.IsNaN(secs):
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
