package seoapi

import (
	"context"
	"slices"
	"time"
)

// The published limits of the API (SPEC.md part 8).
const (
	DefaultRequestsPerHour   = 10000
	DefaultRequestsPerSecond = 50
)

// minReportedWait is the shortest Wait of a Limiter given with WithLimiter
// that is reported as a wait (WaitLimiter): a fleet limiter's round trip
// to Redis takes time without holding anything back.
const minReportedWait = time.Millisecond

// Limiter paces requests. Wait blocks until one request may be sent, and
// fails when ctx ends first or the wait is refused. Every attempt of every
// call, retries included, waits on it. Share one Limiter between the
// clients that use the same API key with WithLimiter.
//
// A Limiter written outside this package refuses a wait that is too long
// with RefuseWait, or lets CheckWait decide, which applies the max wait of
// the calling client (WithMaxWait): the client puts it into the context it
// passes to Wait (or to Acquire, see SlotLimiter).
type Limiter interface {
	Wait(ctx context.Context) error
}

// RateFeedback is the server's hold (or its lift) as one response said it,
// told to a FeedbackLimiter after every attempt whose response said one.
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

// FeedbackLimiter is a Limiter that is also told the server's hold, so
// that it can hold back every request that shares it (in this process, or
// across a fleet) until the server's reset. The client calls Feedback
// after an attempt whose response carried rate-limit headers or a
// Retry-After on a 429. For a Limiter given to WithLimiter that does not
// implement it, the client keeps the hold itself, inside the process; a
// FeedbackLimiter is trusted to keep it, and the client holds nothing back
// on its behalf.
//
// The limiter NewLimiter returns is a FeedbackLimiter: a hold one client
// was told holds back every client sharing it.
type FeedbackLimiter interface {
	Limiter
	Feedback(ctx context.Context, f RateFeedback)
}

// SlotLimiter is a Limiter that learns when each request it let go was
// answered. For Limiter implementations: a server counts a request when it
// arrives, at the latest when its answer leaves, so a limiter told of the
// answer can count the request until a second after it, as the built-in
// limiter does, instead of guessing from the release. When the Limiter
// given with WithLimiter implements SlotLimiter, the client calls Acquire
// instead of Wait for every attempt (and every redirect it follows). A
// SlotLimiter may also be a FeedbackLimiter.
type SlotLimiter interface {
	Limiter
	// Acquire waits as Wait does and returns answered, which the client
	// calls exactly once when the attempt's response arrived or the
	// attempt failed (never when Acquire failed).
	Acquire(ctx context.Context) (answered func(), err error)
}

type rateLimitConfig struct {
	limiter   Limiter // a caller's own, from WithLimiter
	perHour   int
	perSecond int
	off       bool
	reserve   windowReserve // from WithReserve
	rejected  error         // why this combination is refused, kept in clientConfig.errs
}

func defaultRateLimitConfig() rateLimitConfig {
	return rateLimitConfig{perHour: DefaultRequestsPerHour, perSecond: DefaultRequestsPerSecond}
}

// setRateLimit applies an option to the rate-limit config and checks the
// combination again, replacing the error an earlier combination left in
// cfg.errs, so that the order of the options does not matter.
func (cfg *clientConfig) setRateLimit(change func(*rateLimitConfig)) {
	rl := &cfg.rateLimit
	change(rl)
	if rl.rejected != nil {
		cfg.errs = slices.DeleteFunc(cfg.errs, func(err error) bool { return err == rl.rejected })
	}
	rl.rejected = rl.check()
	if rl.rejected != nil {
		cfg.errs = append(cfg.errs, rl.rejected)
	}
}

// check refuses a reserve that no limiter of the client can keep: with
// the limiter off, with a Limiter that is not the built-in one, or as
// large as the limit it is taken from.
func (rl *rateLimitConfig) check() error {
	r := rl.reserve
	if r == (windowReserve{}) {
		return nil
	}
	perHour, perSecond, of := rl.perHour, rl.perSecond, "the client's limits (WithRateLimit)"
	switch l := rl.limiter.(type) {
	case nil:
		if rl.off {
			return invalidArgument("WithReserve(%d, %d): the client-side limiter is off (WithoutRateLimit)", r.perHour, r.perSecond)
		}
	case *windowLimiter:
		perHour, perSecond, of = l.hour.size, l.second.size, "the shared limiter's limits (NewLimiter)"
	default:
		return invalidArgument("WithReserve(%d, %d): the Limiter given with WithLimiter (%T) is not the built-in one (NewLimiter); use that limiter's own reserve (such as redislimit.WithReserve)", r.perHour, r.perSecond, l)
	}
	if r.perHour >= perHour || r.perSecond >= perSecond {
		return invalidArgument("WithReserve(%d, %d): a reserve must be smaller than %s, %d an hour and %d a second", r.perHour, r.perSecond, of, perHour, perSecond)
	}
	return nil
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
		cfg.setRateLimit(func(rl *rateLimitConfig) {
			rl.limiter, rl.off, rl.perHour, rl.perSecond = nil, false, perHour, perSecond
		})
	}
}

// WithLimiter replaces the built-in limiter with l, for example one
// limiter shared by every client of the same key (see NewLimiter) or a
// fleet's. The server's hold (a rate-limit Remaining of 0, Retry-After on
// a 429) is told to l when it is a FeedbackLimiter, and otherwise kept by
// the client itself.
func WithLimiter(l Limiter) Option {
	return func(cfg *clientConfig) {
		if l == nil {
			cfg.reject("WithLimiter: nil Limiter")
			return
		}
		cfg.setRateLimit(func(rl *rateLimitConfig) { rl.limiter, rl.off = l, false })
	}
}

// WithoutRateLimit turns the client-side limiter off. The server's hold
// (a rate-limit Remaining of 0, Retry-After on a 429) is still kept.
func WithoutRateLimit() Option {
	return func(cfg *clientConfig) {
		cfg.setRateLimit(func(rl *rateLimitConfig) { rl.limiter, rl.off = nil, true })
	}
}

// WithReserve makes this client leave perHour requests of the rolling
// hour and perSecond of the rolling second to the other clients sharing
// its limiter (NewLimiter, given to each with WithLimiter), for batch work
// beside a service on the same key: a request goes only while, after it,
// the limiter's windows still hold that many free slots. Otherwise it
// waits, without keeping the others waiting, or fails at once with
// ErrRateLimited (nothing sent) when the wait is longer than the max wait,
// as for the limits themselves. With the client's own limiter the reserve
// lowers its limits. A negative value, a reserve as large as the limit,
// WithoutRateLimit, or a Limiter other than the built-in one fails
// NewClient with ErrInvalidArgument; a fleet's limiter has a reserve of
// its own (redislimit.WithReserve).
func WithReserve(perHour, perSecond int) Option {
	return func(cfg *clientConfig) {
		if perHour < 0 || perSecond < 0 {
			cfg.reject("WithReserve(%d, %d): a reserve cannot be negative", perHour, perSecond)
			return
		}
		cfg.setRateLimit(func(rl *rateLimitConfig) { rl.reserve = windowReserve{perHour: perHour, perSecond: perSecond} })
	}
}

// NewLimiter returns the built-in limiter: at most perHour requests in any
// rolling hour and perSecond in any rolling second, each window kept a
// little longer than published (see docs/limiter.md). It is a
// FeedbackLimiter and a SlotLimiter, safe for concurrent use; pass it to
// several clients with WithLimiter to share one budget, and the hold one
// of them was told; WithReserve makes one of them leave a share to the
// others.
//
// A wait longer than the max wait, or one that would end after the
// context's deadline, fails at once with an *APIError matching
// ErrRateLimited whose RetryAfter is the wait it refused. The max wait is
// the calling client's WithMaxWait (DefaultMaxWait when Wait is called
// outside a Client); a positive maxWait bounds it further for every client
// sharing the limiter, and 0 leaves it to each client.
func NewLimiter(perHour, perSecond int, maxWait time.Duration) (Limiter, error) {
	if perHour <= 0 || perSecond <= 0 {
		return nil, invalidArgument("NewLimiter(%d, %d): limits must be positive", perHour, perSecond)
	}
	if maxWait < 0 {
		return nil, invalidArgument("NewLimiter: negative maxWait")
	}
	return newWindowLimiter(perHour, perSecond, maxWait, time.Now), nil
}

// waitRecord is one wait a request made: which limit held it back, when
// the wait began and how long it lasted (also when ctx cut it short).
type waitRecord struct {
	level WaitLevel
	start time.Time
	d     time.Duration
	err   error // the context's error when it cut the wait short
}

// waitRecords are the waits one request made, at most one per level: the
// server's hold, then the limiter's (one of the built-in levels, or a
// Limiter's from WithLimiter).
type waitRecords struct {
	n int
	w [3]waitRecord
}

func (r *waitRecords) add(level WaitLevel, start time.Time, d time.Duration, err error) {
	if r == nil || r.n == len(r.w) {
		return
	}
	r.w[r.n] = waitRecord{level: level, start: start, d: d, err: err}
	r.n++
}

// all returns the waits in the order they happened.
func (r *waitRecords) all() []waitRecord { return r.w[:r.n] }

// attemptLimiter is what hopTransport uses for every attempt.
type attemptLimiter interface {
	// acquire blocks until one request may go, recording each wait
	// (level, start, duration) in rec when rec is not nil. maxWait is the
	// calling client's WithMaxWait. The request holds the ticket's slot
	// until done is called with it.
	acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	// feedback tells the limiter what a response said (see rateHeaders.hold).
	feedback(ctx context.Context, f RateFeedback)
	// done tells the limiter, once for each acquire that succeeded, that
	// its request got its response or failed (a SlotLimiter's answered).
	// A response means the server counted it by now; a failure after the
	// request left may still arrive later, which maxTransit does not cover
	// (failed attempts are few).
	done(t slotTicket)
}

// newAttemptLimiter builds the attemptLimiter of a client from its
// rate-limit config: the built-in limiter, which keeps the server's hold
// itself, also when it is shared (NewLimiter and WithLimiter); a
// FeedbackLimiter, told the hold; a user's Limiter, or none, with the hold
// kept by the client. A SlotLimiter among them is told when each request
// was answered. maxWait is the client's WithMaxWait, the own bound of the
// client's built-in limiter.
func newAttemptLimiter(cfg rateLimitConfig, maxWait time.Duration, now func() time.Time) attemptLimiter {
	if cfg.off {
		return newHoldingLimiter(nil, now)
	}
	switch l := cfg.limiter.(type) {
	case nil:
		return newWindowLimiter(cfg.perHour, cfg.perSecond, maxWait, now).reserving(cfg.reserve)
	case *windowLimiter:
		return l.reserving(cfg.reserve)
	case FeedbackLimiter:
		return forwardingLimiter{inner: l, now: now}
	default:
		return newHoldingLimiter(l, now)
	}
}

// reservingLimiter is the built-in limiter as seen by a client with a
// reserve (WithReserve): the same windows and hold, its requests let go
// only while the reserve stays free.
type reservingLimiter struct {
	*windowLimiter
	reserve windowReserve
}

func (l reservingLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	return l.acquireKeeping(ctx, maxWait, rec, l.reserve)
}

// levelReason is how an error names the limit that asked for a wait.
func levelReason(level WaitLevel) string {
	switch level {
	case WaitPerSecond:
		return "per-second limit"
	case WaitPerHour:
		return "hourly limit"
	case WaitServer:
		return "server rate limit"
	}
	return "limiter"
}

// holdingLimiter keeps the server's hold inside the process around a
// Limiter that is not told it (a user's, from WithLimiter), or around none
// (WithoutRateLimit).
type holdingLimiter struct {
	inner Limiter // nil: no client-side limit
	hold  serverHold
	now   func() time.Time
}

func newHoldingLimiter(inner Limiter, now func() time.Time) *holdingLimiter {
	l := &holdingLimiter{inner: inner, now: now}
	l.hold.init(now())
	return l
}

func (l *holdingLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if err := l.hold.wait(ctx, effectiveMaxWait(maxWait, 0, ""), rec, l.now); err != nil {
		return slotTicket{}, err
	}
	if l.inner == nil {
		return slotTicket{}, ctx.Err()
	}
	return acquireExternal(ctx, l.inner, maxWait, rec, l.now)
}

func (l *holdingLimiter) feedback(_ context.Context, f RateFeedback) { l.hold.apply(f, l.now()) }

// done tells a SlotLimiter that its request was answered.
func (l *holdingLimiter) done(t slotTicket) { t.answer() }

// forwardingLimiter tells a FeedbackLimiter (a fleet's) the server's hold
// and holds nothing back itself: the limiter holds back every process that
// shares it.
type forwardingLimiter struct {
	inner FeedbackLimiter
	now   func() time.Time
}

func (l forwardingLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	return acquireExternal(ctx, l.inner, maxWait, rec, l.now)
}

func (l forwardingLimiter) feedback(ctx context.Context, f RateFeedback) { l.inner.Feedback(ctx, f) }

// done tells a SlotLimiter that its request was answered.
func (l forwardingLimiter) done(t slotTicket) { t.answer() }

// acquireExternal waits for a Limiter from outside the core (with Acquire
// when it is a SlotLimiter, keeping answered in the ticket), which learns
// the client's max wait from the context (CheckWait reads it), and records
// the wait when it held the request back.
func acquireExternal(ctx context.Context, l Limiter, maxWait time.Duration, rec *waitRecords, now func() time.Time) (slotTicket, error) {
	start := now()
	var t slotTicket
	var err error
	if s, ok := l.(SlotLimiter); ok {
		t.answered, err = s.Acquire(contextWithMaxWait(ctx, maxWait))
		if err != nil {
			t.answered = nil
		}
	} else {
		err = l.Wait(contextWithMaxWait(ctx, maxWait))
	}
	// A wait the context cut short is reported whatever its length; a
	// refusal, which waited for nothing, is not.
	cut := err != nil && ctx.Err() != nil
	if d := now().Sub(start); d >= minReportedWait || cut {
		var cause error
		if cut {
			cause = ctx.Err()
		}
		rec.add(WaitLimiter, start, d, cause)
	}
	return t, err
}
