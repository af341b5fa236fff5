package seoapi

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The published limits of the API (SPEC.md part 8).
const (
	DefaultRequestsPerHour   = 10000
	DefaultRequestsPerSecond = 50
)

// perSecondMargin is the share of the per-second limit the built-in
// limiter paces at. A server counts a request when it arrives, so a client
// paced at exactly the limit collects 429s whenever transit time varies;
// at 96% the arrivals of 51 requests would have to bunch up by more than
// 40 ms before a strict one-second window saw 51 of them.
const perSecondMargin = 0.96

// hourGuard lengthens the built-in limiter's rolling hour, for the same
// reason: a request counted against the hour just before our window opens
// arrives a little after we sent it.
const hourGuard = 2 * time.Second

// Limiter paces requests. Wait blocks until one request may be sent, and
// fails when ctx ends first or the wait is refused. Every attempt of every
// call, retries included, waits on it. Share one Limiter between the
// clients that use the same API key with WithLimiter.
type Limiter interface {
	Wait(ctx context.Context) error
}

// RateFeedback is what one response said about the rate limit, told to a
// FeedbackLimiter after every attempt that got a response.
type RateFeedback struct {
	// Hold asks that nothing be sent for this long: the server said no
	// requests remain until a reset, or answered 429 with Retry-After. It is
	// never longer than the longest published window (an hour and the
	// guard); a reset further ahead is clamped to that.
	Hold time.Duration
	// Lift is set when the server said requests remain: an earlier hold has
	// ended early and no longer applies.
	Lift bool
}

// FeedbackLimiter is a Limiter that is also told what the server said
// about the rate limit, so that it can hold back every request that shares
// it (in this process, or across a fleet) until the server's reset. The
// client calls Feedback after an attempt whose response carried rate-limit
// headers or a Retry-After on a 429. A Limiter given to WithLimiter that
// does not implement it is wrapped so that the server's word is still
// obeyed inside the process.
type FeedbackLimiter interface {
	Limiter
	Feedback(ctx context.Context, f RateFeedback)
}

// RefuseWait returns the error a Limiter gives when it will not wait d for
// the rate limit, because d is longer than the caller accepts: an *APIError
// with StatusCode 0 and RetryAfter d that matches ErrRateLimited. The client
// fills in its Method, URL and Attempts. reason says which limit asked for
// the wait, for the error message.
func RefuseWait(d time.Duration, reason string) *APIError {
	return &APIError{Message: reason, RetryAfter: d, kind: ErrRateLimited}
}

// CheckWait tells a Limiter whether it may wait d: it returns nil when d
// is within maxWait and ends before ctx's deadline, ctx's error when ctx
// has ended, and otherwise a RefuseWait error naming the limit it broke. A
// call of a Client carries the client's WithMaxWait in its context, and
// CheckWait applies the smaller of that and maxWait, so a shared limiter
// never waits longer than the client it serves accepts. reason names the
// limit that asked for the wait ("per-second limit").
func CheckWait(ctx context.Context, d, maxWait time.Duration, reason string) error {
	return checkWait(ctx, d, maxWait, time.Now(), reason)
}

type rateLimitConfig struct {
	limiter   Limiter // a caller's own, from WithLimiter
	perHour   int
	perSecond int
	off       bool
}

func defaultRateLimitConfig() rateLimitConfig {
	return rateLimitConfig{perHour: DefaultRequestsPerHour, perSecond: DefaultRequestsPerSecond}
}

// WithRateLimit sets the built-in limiter's limits: at most perHour
// requests in any rolling hour and perSecond in any rolling second. The
// default is the published 10 000 an hour and 50 a second.
func WithRateLimit(perHour, perSecond int) Option {
	return func(cfg *clientConfig) {
		if perHour <= 0 || perSecond <= 0 {
			cfg.reject("WithRateLimit(%d, %d): limits must be positive", perHour, perSecond)
			return
		}
		cfg.rateLimit = rateLimitConfig{perHour: perHour, perSecond: perSecond}
	}
}

// WithLimiter replaces the built-in limiter with l, for example one
// limiter shared by every client of the same key (see NewLimiter).
func WithLimiter(l Limiter) Option {
	return func(cfg *clientConfig) {
		if l == nil {
			cfg.reject("WithLimiter: nil Limiter")
			return
		}
		cfg.rateLimit = rateLimitConfig{limiter: l}
	}
}

// WithoutRateLimit turns the client-side limiter off. The server's own
// word (a rate-limit Remaining of 0, Retry-After on a 429) is still obeyed.
func WithoutRateLimit() Option {
	return func(cfg *clientConfig) { cfg.rateLimit = rateLimitConfig{off: true} }
}

// NewLimiter returns the built-in limiter: at most perHour requests in any
// rolling hour and perSecond in any rolling second, paced a little under
// both (see the README). A wait longer than maxWait, or one that would end
// after the context's deadline, fails at once with an *APIError matching
// ErrRateLimited whose RetryAfter is the wait it refused. It is safe for
// concurrent use; pass it to several clients with WithLimiter to share it.
func NewLimiter(perHour, perSecond int, maxWait time.Duration) (Limiter, error) {
	if perHour <= 0 || perSecond <= 0 {
		return nil, invalidArgument("NewLimiter(%d, %d): limits must be positive", perHour, perSecond)
	}
	if maxWait < 0 {
		return nil, invalidArgument("NewLimiter: negative maxWait")
	}
	return newWindowLimiter(perHour, perSecond, maxWait, time.Now), nil
}

// windowLimiter holds both levels: a token bucket of burst 1 for the
// second, and an exact rolling hour kept as the release times of the last
// perHour requests. A token bucket for the hour would let a full burst
// through at the start and refill behind it: about twice the limit in the
// first hour.
type windowLimiter struct {
	second  *rate.Limiter
	maxWait time.Duration
	now     func() time.Time

	mu      sync.Mutex
	start   time.Time       // origin of released; monotonic
	release []time.Duration // ring of the last perHour release times, since start
	next    int             // the oldest entry, once the ring is full
	perHour int
}

func newWindowLimiter(perHour, perSecond int, maxWait time.Duration, now func() time.Time) *windowLimiter {
	return &windowLimiter{
		second:  rate.NewLimiter(rate.Limit(float64(perSecond)*perSecondMargin), 1),
		maxWait: maxWait,
		now:     now,
		start:   now(),
		perHour: perHour,
	}
}

// Wait blocks until both levels allow one more request.
func (l *windowLimiter) Wait(ctx context.Context) error {
	if err := l.waitSecond(ctx); err != nil {
		return err
	}
	return l.waitHour(ctx)
}

func (l *windowLimiter) waitSecond(ctx context.Context) error {
	now := l.now()
	r := l.second.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if err := checkWait(ctx, delay, l.maxWait, now, "per-second limit"); err != nil {
		r.CancelAt(now)
		return err
	}
	if err := sleep(ctx, delay); err != nil {
		r.Cancel()
		return err
	}
	return nil
}

// waitHour reserves a slot in the rolling hour: at once when fewer than
// perHour requests were released in the last hour, else at the moment the
// oldest of them leaves the window.
func (l *windowLimiter) waitHour(ctx context.Context) error {
	now := l.now()
	l.mu.Lock()
	at := now.Sub(l.start)
	if len(l.release) < l.perHour {
		l.release = append(l.release, at)
		l.mu.Unlock()
		return nil
	}
	free := l.release[l.next] + time.Hour + hourGuard
	delay := max(free-at, 0)
	if err := checkWait(ctx, delay, l.maxWait, now, "hourly limit"); err != nil {
		l.mu.Unlock()
		return err
	}
	l.release[l.next] = max(free, at)
	l.next = (l.next + 1) % l.perHour
	l.mu.Unlock()
	return sleep(ctx, delay)
}

// checkWait refuses a wait longer than maxWait or one that would end after
// ctx's deadline, with an error matching ErrRateLimited that says how long
// the wait would have been.
func checkWait(ctx context.Context, d, maxWait time.Duration, now time.Time, what string) error {
	if d <= 0 {
		return ctx.Err()
	}
	if d > maxWait {
		return waitRefused(d, what+": wait exceeds WithMaxWait ("+maxWait.String()+")")
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(d).After(deadline) {
		return waitRefused(d, what+": wait would end after the context's deadline")
	}
	return nil
}

func waitRefused(d time.Duration, message string) *APIError {
	return &APIError{Message: message, RetryAfter: d, kind: ErrRateLimited}
}

// sleep waits for d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
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
	var r Rate
	for _, prefix := range [...]string{"X-Ratelimit-", "Ratelimit-"} {
		remaining, ok := headerInt(h, prefix+"Remaining")
		if !ok {
			continue
		}
		r.Remaining = remaining
		r.Limit, _ = headerInt(h, prefix+"Limit")
		r.Reset = parseReset(h.Get(prefix+"Reset"), now)
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
