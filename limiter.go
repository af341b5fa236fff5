package seoapi

import (
	"context"
	"slices"
	"time"
)

// The published limits of the API.
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
// Retry-After on a 429, except that it does not pass on a Lift from the
// answer to a request sent before the last hold it passed on: that answer
// says nothing of the newer hold. A hold told by another process sharing
// the limiter is the limiter's to guard the same way. For a Limiter given
// to WithLimiter that does not implement FeedbackLimiter, the client keeps
// the hold itself, inside the process; a FeedbackLimiter is trusted to
// keep it, and the client holds nothing back on its behalf.
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

// rateLimitConfig is what the limiter options chose. NewClient refuses
// options that contradict each other, whatever their order.
type rateLimitConfig struct {
	limiter   Limiter // a caller's own, from WithLimiter
	perHour   int
	perSecond int
	limits    bool          // WithRateLimit was given
	off       bool          // WithoutRateLimit was given
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

// check refuses options that contradict each other, and a reserve that no
// limiter of the client can keep: with the limiter off, with a Limiter
// that is not the built-in one, or as large as the limit it is taken from.
func (rl *rateLimitConfig) check() error {
	if rl.limiter != nil && (rl.limits || rl.off) || rl.limits && rl.off {
		return invalidArgument("conflicting limiter options: WithLimiter, WithRateLimit and WithoutRateLimit each choose the limiter; give one")
	}
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
// default is the published 10 000 an hour and 50 a second. Given with
// WithLimiter or WithoutRateLimit, it fails NewClient with
// ErrInvalidArgument.
func WithRateLimit(perHour, perSecond int) Option {
	return func(cfg *clientConfig) {
		if perHour <= 0 || perSecond <= 0 {
			cfg.reject("WithRateLimit(%d, %d): limits must be positive", perHour, perSecond)
			return
		}
		cfg.setRateLimit(func(rl *rateLimitConfig) { rl.perHour, rl.perSecond, rl.limits = perHour, perSecond, true })
	}
}

// WithLimiter replaces the built-in limiter with l, for example one
// limiter shared by every client of the same key (see NewLimiter) or a
// fleet's. The server's hold (a rate-limit Remaining of 0, Retry-After on
// a 429) is told to l when it is a FeedbackLimiter, and otherwise kept by
// the client itself. Given with WithRateLimit or WithoutRateLimit, it
// fails NewClient with ErrInvalidArgument.
func WithLimiter(l Limiter) Option {
	return func(cfg *clientConfig) {
		if l == nil {
			cfg.reject("WithLimiter: nil Limiter")
			return
		}
		cfg.setRateLimit(func(rl *rateLimitConfig) { rl.limiter = l })
	}
}

// WithoutRateLimit turns the client-side limiter off. The server's hold
// (a rate-limit Remaining of 0, Retry-After on a 429) is still kept. Given
// with WithLimiter or WithRateLimit, it fails NewClient with
// ErrInvalidArgument.
func WithoutRateLimit() Option {
	return func(cfg *clientConfig) {
		cfg.setRateLimit(func(rl *rateLimitConfig) { rl.off = true })
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
// FeedbackLimiter, a SlotLimiter and a BudgetLimiter, safe for concurrent
// use; pass it to several clients with WithLimiter to share one budget,
// and the hold one of them was told; WithReserve makes one of them leave a
// share to the others.
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

// waitRecords are the waits one request made, at most three: the
// server's hold, then the limiter's (one of the built-in levels, or a
// Limiter's from WithLimiter), and a hold met again after a reserve's wait.
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

// slotTicket is one request a limiter let go: when, and what it holds.
type slotTicket struct {
	sent     time.Time // when the request was let go
	id       uint64    // its slots in the built-in limiter; 0: none
	answered func()    // a SlotLimiter's, from outside the core
}

// attemptLimiter is what hopTransport uses for every attempt.
type attemptLimiter interface {
	// acquire blocks until one request may go, recording each wait
	// (level, start, duration) in rec when rec is not nil. maxWait is the
	// calling client's WithMaxWait. The request holds the ticket's slots
	// until done is called with it.
	acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	// feedback tells the limiter what the answer to t's request said (see
	// rateHeaders.hold). A Lift counts only when t's request was sent
	// after the last hold was asked for.
	feedback(ctx context.Context, t slotTicket, f RateFeedback)
	// done tells the limiter, once for each acquire that succeeded, that
	// its request got an answer (answered) or failed after it may have
	// been sent (see windowLimiter.done).
	done(t slotTicket, answered bool)
	// Budget is Client.Budget's answer.
	Budget(ctx context.Context) (Budget, error)
}

// newAttemptLimiter returns the attemptLimiter of a client: the built-in
// limiter (the client's own, or a shared one) with the client's reserve,
// or a Limiter from outside the core, or none.
func newAttemptLimiter(cfg rateLimitConfig, now func() time.Time) attemptLimiter {
	switch l := cfg.limiter.(type) {
	case *windowLimiter:
		return builtinLimiter{l, cfg.reserve}
	case nil:
		if cfg.off {
			return newOtherLimiter(nil, now)
		}
		return builtinLimiter{newWindowLimiter(cfg.perHour, cfg.perSecond, 0, now), cfg.reserve}
	default:
		return newOtherLimiter(l, now)
	}
}

// builtinLimiter is the built-in limiter as one client uses it: its
// requests go only while the client's reserve stays free.
type builtinLimiter struct {
	*windowLimiter
	keep windowReserve
}

func (l builtinLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	return l.take(ctx, maxWait, rec, l.keep)
}

// otherLimiter is a Limiter from outside the core (WithLimiter), or none
// (WithoutRateLimit). The client keeps the server's hold itself, unless
// the Limiter is a FeedbackLimiter, which is told it instead.
type otherLimiter struct {
	inner Limiter         // nil: no client-side limit
	fleet FeedbackLimiter // inner, when it keeps the hold itself
	hold  serverHold      // kept here also for a fleet, to know when it was last told one
	now   func() time.Time
}

func newOtherLimiter(inner Limiter, now func() time.Time) *otherLimiter {
	l := &otherLimiter{inner: inner, now: now}
	l.fleet, _ = inner.(FeedbackLimiter)
	return l
}

// acquire waits for the server's hold, then for the Limiter (with Acquire
// when it is a SlotLimiter), which learns the client's max wait from the
// context (CheckWait reads it); it records the Limiter's wait when it held
// the request back or the context cut it short.
func (l *otherLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if l.fleet == nil {
		if err := l.hold.wait(ctx, effectiveMaxWait(maxWait, 0, ""), rec, l.now, sleep); err != nil {
			return slotTicket{}, err
		}
	}
	if l.inner == nil {
		return slotTicket{sent: l.now()}, ctx.Err()
	}
	start := l.now()
	var t slotTicket
	var err error
	if s, ok := l.inner.(SlotLimiter); ok {
		t.answered, err = s.Acquire(contextWithMaxWait(ctx, maxWait))
	} else {
		err = l.inner.Wait(contextWithMaxWait(ctx, maxWait))
	}
	t.sent = l.now()
	// A refusal, which waited for nothing, is not reported.
	cut := err != nil && ctx.Err() != nil
	if d := t.sent.Sub(start); d >= minReportedWait || cut {
		rec.add(WaitLimiter, start, d, causeIf(cut, ctx))
	}
	if err != nil {
		return slotTicket{}, err
	}
	return t, nil
}

func (l *otherLimiter) feedback(ctx context.Context, t slotTicket, f RateFeedback) {
	if l.hold.apply(f, t.sent, l.now()) && l.fleet != nil {
		l.fleet.Feedback(ctx, f)
	}
}

// done tells a SlotLimiter that its request was answered or failed.
func (l *otherLimiter) done(t slotTicket, _ bool) {
	if t.answered != nil {
		t.answered()
	}
}

// Budget is the Limiter's, with the hold the client keeps for it.
func (l *otherLimiter) Budget(ctx context.Context) (Budget, error) {
	bl, ok := l.inner.(BudgetLimiter)
	if !ok {
		return Budget{}, invalidArgument("Budget: the client's limiter is off or does not implement seoapi.BudgetLimiter")
	}
	b, err := bl.Budget(ctx)
	if until := l.hold.end(l.now()); l.fleet == nil && until.After(b.HoldUntil) {
		b.HoldUntil = until
	}
	return b, err
}

// causeIf returns ctx's error when cut, for a wait's record.
func causeIf(cut bool, ctx context.Context) error {
	if cut {
		return ctx.Err()
	}
	return nil
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
