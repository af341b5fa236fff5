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

// minReportedWait is the shortest wait of another Limiter that is
// reported: a fleet limiter's round trip holds nothing back.
const minReportedWait = time.Millisecond

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

// FeedbackLimiter is a Limiter that is told the server's hold, so that it
// holds back every request that shares it (in this process, or across a
// fleet). The client calls Feedback after an attempt whose response
// carried rate-limit headers or a Retry-After on a 429, and trusts it to
// keep the hold; for another Limiter the client keeps the hold itself. The
// client does not pass on a Lift from the answer to a request sent before
// the last hold it passed on; a hold from another process is the
// limiter's to guard the same way. NewLimiter's limiter is one.
type FeedbackLimiter interface {
	Limiter
	Feedback(ctx context.Context, f RateFeedback)
}

// SlotLimiter is a Limiter told when each request it let go was answered,
// so that it can count the request until a second after its answer, as
// the built-in limiter does, instead of guessing from the release. The
// client calls Acquire instead of Wait for every attempt and redirect.
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
// A wait longer than the max wait, or one that would end after the
// context's deadline, fails at once with an *APIError matching
// ErrRateLimited whose RetryAfter is the wait it refused. The max wait is
// the calling client's WithMaxWait (DefaultMaxWait outside a Client); a
// positive maxWait bounds it further for every client sharing the limiter.
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

func (r *waitRecords) add(level WaitLevel, start time.Time, d time.Duration, err error) {
	if r != nil && r.n < len(r.w) {
		r.w[r.n] = waitRecord{level: level, start: start, d: d, err: err}
		r.n++
	}
}

func (r *waitRecords) all() []waitRecord { return r.w[:r.n] }

// slotTicket is one request a limiter let go.
type slotTicket struct {
	sent     time.Time // when it was let go
	taken    bool      // it holds slots of the built-in limiter
	answered func()    // a SlotLimiter's
}

// attemptLimiter is what hopTransport uses for every attempt: acquire
// blocks until one request may go within maxWait (the client's
// WithMaxWait), recording each wait in rec when not nil; feedback tells
// what the answer to a request sent at sent said; done tells, once for
// each acquire that succeeded, that the request was answered, or failed
// after it may have been sent.
type attemptLimiter interface {
	acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	feedback(ctx context.Context, sent time.Time, f RateFeedback)
	done(t slotTicket, answered bool)
	Budget(ctx context.Context) (Budget, error)
}

// newAttemptLimiter returns a client's attemptLimiter: the built-in
// limiter (its own, or a shared one) with its reserve, or another Limiter,
// or none.
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

// otherLimiter is a Limiter from outside the core, or none. The client
// keeps the server's hold, and waits for it unless the Limiter is a
// FeedbackLimiter (hold.fleet), which is told it.
type otherLimiter struct {
	serverHold
	inner Limiter // nil: none
}

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
	// A refusal, which waited for nothing, is not reported.
	cut := err != nil && ctx.Err() != nil
	if d := t.sent.Sub(start); d >= minReportedWait || cut {
		rec.add(WaitLimiter, start, d, causeIf(cut, ctx))
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
	}
	return "server rate limit"
}
