package seoapi

import (
	"net/http"
	"time"
)

// rateHeaders is what a response's headers say about the rate limit and
// the request, read once per response.
type rateHeaders struct {
	rate Rate
	// retryAfter is the Retry-After header, when hasRetryAfter.
	retryAfter    time.Duration
	hasRetryAfter bool
	// wait is how long the server asked the client to wait, when asked:
	// Retry-After, else the reset of an exhausted rate limit.
	wait      time.Duration
	asked     bool
	requestID string
}

// readRateHeaders reads h, whose values are already cleaned of the key.
func readRateHeaders(h http.Header, now time.Time) rateHeaders {
	r := rateHeaders{rate: parseRate(h, now), requestID: h.Get("X-Request-Id")}
	if r.requestID == "" {
		r.requestID = h.Get("Request-Id")
	}
	// The monotonic reading is for comparisons, not for a printed Reset.
	r.rate.Reset = r.rate.Reset.Round(0)
	r.retryAfter, r.hasRetryAfter = parseRetryAfter(h.Get("Retry-After"), now)
	switch {
	case r.hasRetryAfter:
		r.wait, r.asked = r.retryAfter, true
	case r.rate.exhausted(now):
		r.wait, r.asked = r.rate.Reset.Sub(now), true
	}
	return r
}

// hold is what the response tells the limiter: a 429 with Retry-After, or
// no requests remaining until a reset still ahead, asks for a hold (never
// longer than maxHold); requests remaining, on any other status, lift a
// hold. ok is false when the response said nothing of the kind.
func (r *rateHeaders) hold(status int, now time.Time) (f RateFeedback, ok bool) {
	if status == http.StatusTooManyRequests && r.hasRetryAfter && r.retryAfter > 0 {
		return RateFeedback{Hold: min(r.retryAfter, maxHold)}, true
	}
	switch {
	case r.rate.exhausted(now):
		return RateFeedback{Hold: min(r.rate.Reset.Sub(now), maxHold)}, true
	case r.rate.Remaining > 0 && status != http.StatusTooManyRequests:
		return RateFeedback{Lift: true}, true
	}
	return RateFeedback{}, false
}
