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
	// Hold asks that nothing be sent for this long (at most an hour and a
	// guard): no requests remain until a reset, or a 429 said Retry-After.
	Hold time.Duration
	// Lift says requests remain: an earlier hold ended early.
	Lift bool
}

// FeedbackLimiter is a Limiter that keeps the server's hold for every
// request sharing it, in this process or across a fleet (the client keeps
// the hold for any other Limiter). The client calls Feedback after each
// response with rate-limit headers or a 429 with Retry-After, but passes
// on no Lift answering a request sent before the last hold it passed on.
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
	// Acquire waits as Wait does. The client calls answered exactly once, when
	// the attempt was answered or failed (never when Acquire failed).
	Acquire(ctx context.Context) (answered func(), err error)
}

// NewLimiter returns the built-in limiter: at most perHour requests in any
// rolling hour and perSecond in any rolling second. It is a FeedbackLimiter,
// a SlotLimiter and a BudgetLimiter, safe for concurrent use; clients given
// it with WithLimiter share its budget and the server's hold. It refuses a
// wait as CheckWait does, with maxWait as its own max wait.
func NewLimiter(perHour, perSecond int, maxWait time.Duration) (Limiter, error) {
	if perHour <= 0 || perSecond <= 0 || maxWait < 0 {
		return nil, invalidArgument("NewLimiter(%d, %d, %s): limits must be positive, maxWait not negative", perHour, perSecond, maxWait)
	}
	return newWindowLimiter(perHour, perSecond, maxWait, time.Now), nil
}

// RefuseWait is for Limiter implementations: it returns the error a
// Limiter gives when it will not wait d, an *APIError matching
// ErrRateLimited with StatusCode 0 and RetryAfter d. The client reports it
// in an *APIError of its own, with the call's Method, URL and Attempts,
// that errors.Is matches to this value, so a Limiter may return one value
// for every refusal. reason is the message; it should begin with the
// limit that asked for the wait, such as "fleet limit".
func RefuseWait(d time.Duration, reason string) *APIError {
	return &APIError{Message: reason, RetryAfter: d, kind: ErrRateLimited}
}

// CheckWait is for Limiter implementations: it returns nil when a Limiter
// may wait d (at most the max wait, ending before ctx's deadline), ctx's
// error once ctx ended, and otherwise a RefuseWait error with reason and the
// bound d broke. The max wait is the client's WithMaxWait (DefaultMaxWait
// outside a Client), or maxWait when positive and smaller.
func CheckWait(ctx context.Context, d, maxWait time.Duration, reason string) error {
	return maxWaitLimit{client: clientMaxWait(ctx), own: maxWait, ownName: "the limiter's own"}.check(ctx, d, time.Now(), reason)
}

// maxWaitKey carries the client's max wait to a Limiter, for CheckWait.
type maxWaitKey struct{}

// clientMaxWait is the calling client's max wait; DefaultMaxWait outside one.
func clientMaxWait(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(maxWaitKey{}).(time.Duration); ok {
		return d
	}
	return DefaultMaxWait
}

// maxWaitLimit bounds one wait by the smaller of the client's max wait and
// a limiter's own (0: none), named ownName; a tie names the client's.
type maxWaitLimit struct {
	client, own time.Duration
	ownName     string
}

// check refuses a wait of d from now that is longer than the limit or
// would end after ctx's deadline.
func (m maxWaitLimit) check(ctx context.Context, d time.Duration, now time.Time, reason string) error {
	if d <= 0 {
		return ctx.Err()
	}
	limit, name := m.client, "WithMaxWait"
	switch {
	case m.client < 0 && m.own > 0: // the client set none: the limiter's own bound stands in
		limit, name = m.own, m.ownName
	case m.client < 0:
		limit = DefaultMaxWait
	case m.own > 0 && m.own < m.client:
		limit, name = m.own, m.ownName
	}
	if d > limit {
		return RefuseWait(d, reason+": wait of "+d.String()+" exceeds the max wait of "+limit.String()+" ("+name+")")
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(d).After(deadline) {
		return RefuseWait(d, reason+": wait of "+d.String()+" would end after the context's deadline")
	}
	return ctx.Err()
}

// waitRecord is one wait; err is the context's error, if it ended.
type waitRecord struct {
	level WaitLevel
	start time.Time
	d     time.Duration
	err   error
}

// waitRecords are the waits of one request, in order.
type waitRecords []waitRecord

func (r *waitRecords) add(level WaitLevel, start time.Time, d time.Duration, err error) {
	if r != nil {
		*r = append(*r, waitRecord{level: level, start: start, d: d, err: err})
	}
}

// levelReasons name the limit that asked for a wait in a refusal.
var levelReasons = map[WaitLevel]string{WaitPerSecond: "per-second limit", WaitPerHour: "hourly limit", WaitServer: "server rate limit"}

// slotTicket is one request a limiter let go.
type slotTicket struct {
	hour, second time.Duration // when its slots of the built-in limiter free, since its origin; 0: none
	answered     func()        // a SlotLimiter's
}

// attemptLimiter is a client's limiter as hopTransport uses it: acquire
// waits within maxWait, recording each wait in rec; feedback tells what the
// answer to a request sent at sent said; done, that it was answered or failed.
type attemptLimiter interface {
	acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	feedback(ctx context.Context, sent time.Time, f RateFeedback)
	done(t slotTicket, answered bool)
	Budget(ctx context.Context) (Budget, error)
}

// newAttemptLimiter returns a client's limiter: the built-in one (its own
// or a shared one) with its reserve, another Limiter, or none.
func newAttemptLimiter(cfg rateLimitConfig, now func() time.Time) attemptLimiter {
	l := cfg.limiter
	if l == nil && !cfg.off {
		l = newWindowLimiter(cfg.perHour, cfg.perSecond, 0, now)
	}
	if w, ok := l.(*windowLimiter); ok {
		return builtinLimiter{windowLimiter: w, keep: cfg.reserve}
	}
	fleet, _ := l.(FeedbackLimiter)
	return &otherLimiter{serverHold: serverHold{now: now, sleep: sleep, fleet: fleet}, inner: l}
}

// builtinLimiter is the built-in limiter with one client's reserve.
type builtinLimiter struct {
	*windowLimiter
	keep    windowReserve
	unheard bool // for Wait: no answer is heard of, a request counts from its release
}

// otherLimiter is a Limiter from outside the core, or none, and the
// server's hold, which it waits for unless the Limiter keeps it (fleet).
type otherLimiter struct {
	serverHold
	inner Limiter // nil: none
}

// minReportedWait is the shortest wait of another Limiter recorded: a
// fleet limiter's round trip is no wait.
const minReportedWait = time.Millisecond

// acquire waits for the hold, then for the Limiter, which may read the
// client's max wait from the context (CheckWait).
func (l *otherLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if err := l.waitOut(ctx, maxWaitLimit{client: maxWait}, rec); err != nil {
		return slotTicket{}, err
	}
	if l.inner == nil {
		return slotTicket{}, ctx.Err()
	}
	start := l.now()
	ctx = context.WithValue(ctx, maxWaitKey{}, maxWait)
	var t slotTicket
	var err error
	if s, ok := l.inner.(SlotLimiter); ok {
		t.answered, err = s.Acquire(ctx)
	} else {
		err = l.inner.Wait(ctx)
	}
	if d := l.now().Sub(start); d >= minReportedWait || err != nil && ctx.Err() != nil {
		rec.add(WaitLimiter, start, d, ctx.Err())
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
	if until := l.end(); until.After(b.HoldUntil) {
		b.HoldUntil = until
	}
	return b, err
}

// Budget is what a client's limiter has left: its limits, the requests it
// counts in the current rolling hour and second, and HoldUntil, the end of
// the server's hold (zero when none is set). Asking for it sends no request.
type Budget struct {
	PerHour, PerSecond   int
	UsedHour, UsedSecond int
	HoldUntil            time.Time
}

// BudgetLimiter is a Limiter that can tell its Budget, as NewLimiter's
// does; Client.Budget asks the client's Limiter through it.
type BudgetLimiter interface {
	Budget(ctx context.Context) (Budget, error)
}

// Budget returns the client limiter's Budget, or ErrInvalidArgument when
// the limiter is off (WithoutRateLimit) or is not a BudgetLimiter.
func (c *Client) Budget(ctx context.Context) (Budget, error) {
	if ctx == nil {
		return Budget{}, invalidArgument("nil context")
	}
	return c.limiter.Budget(ctx)
}
