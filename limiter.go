package seoapi

import (
	"context"
	"time"
)

// The published limits of the API.
const (
	DefaultRequestsPerHour   = 10000
	DefaultRequestsPerSecond = 50
)

// Limiter paces requests. Wait blocks until one request may be sent, and
// fails when ctx ends first or the wait is refused (see CheckWait). Every
// attempt of every call, retries included, waits on it. Share one Limiter
// between the clients that use the same API key with WithLimiter.
type Limiter interface {
	Wait(ctx context.Context) error
}

// RateFeedback is the server's hold (or its lift) as one response said it.
type RateFeedback struct {
	// Hold asks that nothing be sent for this long: the server said no
	// requests remain until a reset (at most an hour and a guard ahead),
	// or answered 429 with Retry-After.
	Hold time.Duration
	// Lift is set when the server said requests remain: an earlier hold
	// has ended early.
	Lift bool
}

// FeedbackLimiter is a Limiter told the server's hold, which it keeps for
// every request sharing it, in this process or across a fleet (the client
// keeps it for another Limiter). The client calls Feedback after each
// response with rate-limit headers or a 429 with Retry-After, but passes
// on no Lift answering a request sent before the last hold it passed on;
// a hold from another process is the limiter's to guard alike.
type FeedbackLimiter interface {
	Limiter
	Feedback(ctx context.Context, f RateFeedback)
}

// SlotLimiter is a Limiter told when each request it let go was answered,
// so that it can count the request until a second after its answer, as
// the built-in limiter does. The client calls Acquire instead of Wait for
// every attempt and redirect.
type SlotLimiter interface {
	Limiter
	// Acquire waits as Wait does and returns answered, which the client
	// calls exactly once when the attempt's response arrived or the
	// attempt failed (never when Acquire failed).
	Acquire(ctx context.Context) (answered func(), err error)
}

// NewLimiter returns the built-in limiter: at most perHour requests in any
// rolling hour and perSecond in any rolling second (see docs/limiter.md).
// It is a FeedbackLimiter, a SlotLimiter and a BudgetLimiter, safe for
// concurrent use; give it to several clients with WithLimiter to share one
// budget and the server's hold.
//
// A wait longer than the max wait, or past the context's deadline, fails
// at once with an *APIError matching ErrRateLimited whose RetryAfter is
// the wait refused. The max wait is the calling client's WithMaxWait
// (DefaultMaxWait outside a Client), or maxWait when positive and smaller.
func NewLimiter(perHour, perSecond int, maxWait time.Duration) (Limiter, error) {
	if perHour <= 0 || perSecond <= 0 || maxWait < 0 {
		return nil, invalidArgument("NewLimiter(%d, %d, %s): limits must be positive, maxWait not negative", perHour, perSecond, maxWait)
	}
	return newWindowLimiter(perHour, perSecond, maxWait, time.Now), nil
}

// waitRecord is one wait a request made.
type waitRecord struct {
	level WaitLevel
	start time.Time
	d     time.Duration
	err   error // the context's error when it cut the wait short
}

// waitRecords are the waits one request made, in order, at most three.
type waitRecords struct {
	n int
	w [3]waitRecord
}

// add records a wait; a failed one keeps ctx's error, when ctx ended it.
func (r *waitRecords) add(level WaitLevel, start time.Time, d time.Duration, ctx context.Context, failed bool) {
	if r != nil && r.n < len(r.w) {
		r.w[r.n] = waitRecord{level: level, start: start, d: d}
		if failed {
			r.w[r.n].err = ctx.Err()
		}
		r.n++
	}
}

func (r *waitRecords) all() []waitRecord { return r.w[:r.n] }

// levelReasons are how an error names the limit that asked for a wait.
var levelReasons = map[WaitLevel]string{WaitPerSecond: "per-second limit", WaitPerHour: "hourly limit", WaitServer: "server rate limit"}

// slotTicket is one request a limiter let go.
type slotTicket struct {
	sent     time.Time // when it was let go
	taken    bool      // it holds slots of the built-in limiter
	answered func()    // a SlotLimiter's
}

// attemptLimiter is what hopTransport uses for every attempt: acquire
// waits for a turn within maxWait (the client's WithMaxWait), recording
// each wait in rec; feedback tells what the answer to a request sent at
// sent said; done tells, once a turn, that the request was answered, or
// failed after it may have been sent.
type attemptLimiter interface {
	acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	feedback(ctx context.Context, sent time.Time, f RateFeedback)
	done(t slotTicket, answered bool)
	Budget(ctx context.Context) (Budget, error)
}

// newAttemptLimiter returns a client's limiter: the built-in one (its own
// or a shared one) with its reserve, another Limiter, or none.
func newAttemptLimiter(cfg rateLimitConfig, now func() time.Time) attemptLimiter {
	switch l := cfg.limiter.(type) {
	case *windowLimiter:
		return builtinLimiter{windowLimiter: l, keep: cfg.reserve}
	case nil:
		if !cfg.off {
			return builtinLimiter{windowLimiter: newWindowLimiter(cfg.perHour, cfg.perSecond, 0, now), keep: cfg.reserve}
		}
	}
	l := &otherLimiter{serverHold: serverHold{now: now}, inner: cfg.limiter}
	l.fleet, _ = cfg.limiter.(FeedbackLimiter)
	return l
}

// builtinLimiter is the built-in limiter with one client's reserve.
type builtinLimiter struct {
	*windowLimiter
	keep windowReserve
	// unheard is set for Wait, whose answers are never heard of: each
	// request counts in the second from its release, with a wider guard.
	unheard bool
}

// otherLimiter is a Limiter from outside the core, or none, and the
// server's hold, which it waits for unless the Limiter keeps it (fleet).
type otherLimiter struct {
	serverHold
	inner Limiter // nil: none
}

// minReportedWait is the shortest wait of another Limiter recorded: a
// fleet limiter's round trip is no wait; nor is a refusal.
const minReportedWait = time.Millisecond

// acquire waits for the hold, then for the Limiter (with Acquire when it
// is a SlotLimiter), which reads the client's max wait from the context.
func (l *otherLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if l.fleet == nil {
		if err := l.waitOut(ctx, maxWaitLimit{client: maxWait}, rec, sleep); err != nil {
			return slotTicket{}, err
		}
	}
	start := l.now()
	if l.inner == nil {
		return slotTicket{sent: start}, ctx.Err()
	}
	var t slotTicket
	var err error
	if s, ok := l.inner.(SlotLimiter); ok {
		t.answered, err = s.Acquire(contextWithMaxWait(ctx, maxWait))
	} else {
		err = l.inner.Wait(contextWithMaxWait(ctx, maxWait))
	}
	t.sent = l.now()
	cut := err != nil && ctx.Err() != nil
	if d := t.sent.Sub(start); d >= minReportedWait || cut {
		rec.add(WaitLimiter, start, d, ctx, cut)
	}
	return t, err
}

func (l *otherLimiter) done(t slotTicket, _ bool) {
	if t.answered != nil {
		t.answered()
	}
}

// Budget is the Limiter's, with the hold the client keeps for it.
func (l *otherLimiter) Budget(ctx context.Context) (Budget, error) {
	bl, ok := l.inner.(BudgetLimiter)
	if !ok {
		return Budget{}, invalidArgument("Budget: the client's limiter is off or is not a seoapi.BudgetLimiter")
	}
	b, err := bl.Budget(ctx)
	if until := l.end(); l.fleet == nil && until.After(b.HoldUntil) {
		b.HoldUntil = until
	}
	return b, err
}

// Budget is what a client's limiter has left: its limits, the requests it
// counts in the current rolling hour and second, and the end of the
// server's hold, if one is set. Asking for it sends no request.
type Budget struct {
	PerHour, PerSecond   int
	UsedHour, UsedSecond int
	// HoldUntil is when the server's hold ends; zero when there is none.
	HoldUntil time.Time
}

// BudgetLimiter is a Limiter that can tell its Budget. The built-in
// limiter (NewLimiter) is one; a Limiter given with WithLimiter may
// implement it so that Client.Budget works with it too.
type BudgetLimiter interface {
	Budget(ctx context.Context) (Budget, error)
}

// Budget returns the budget of the client's limiter. It fails with
// ErrInvalidArgument when the limiter cannot tell one: the limiter is off
// (WithoutRateLimit), or a Limiter given with WithLimiter does not
// implement BudgetLimiter.
func (c *Client) Budget(ctx context.Context) (Budget, error) {
	if ctx == nil {
		return Budget{}, invalidArgument("nil context")
	}
	return c.transport.limiter.Budget(ctx)
}
