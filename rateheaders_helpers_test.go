package seoapi

import (
	"net/http"
	"time"
)

// rateFeedback is the hold the attempt tells the limiter of a response
// with status and headers h (0 ends one).
func rateFeedback(status int, h http.Header, now time.Time) (time.Duration, bool) {
	r := readRateHeaders(h, now)
	return r.hold(status, now)
}

// retryAfter is the wait the server asked for in h.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	r := readRateHeaders(h, now)
	return r.wait, r.asked
}
