package seoapi

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The published limits of the API (SPEC.md part 8).
const (
	DefaultRequestsPerHour   = 10000
	DefaultRequestsPerSecond = 50
)

// secondGuard lengthens the built-in limiter's rolling second. A server
// counts a request when it arrives, somewhere between its release and its
// response; the built-in limiter therefore counts each request of a Client
// in the second that follows its response, or, for a response slower than
// maxTransit, the second that follows release + maxTransit (see
// secondWindow). That holds on the server's clock whatever the transit
// and whatever the load on the machine, and the guard only absorbs timer
// and clock granularity: 5 ms, 0.5% of the rate. A request released by
// Wait alone, whose response the limiter never hears of, counts from its
// release with releaseGuard.
const secondGuard = 5 * time.Millisecond

// maxTransit is how late after its release a request is assumed to reach
// the server at the latest, when its response has not come back yet. It
// bounds what a slow endpoint costs when the limit binds: at worst
// 1/(1 s + maxTransit + guard) of the limit, one half. 250 ms still let
// 429s through on a 2-core machine under heavy load, where responses from
// a local server took longer than that; 1 s gave none.
const maxTransit = time.Second

// releaseGuard lengthens the rolling second for requests counted from
// their release (Wait called directly): arrivals perSecond requests apart
// must not come closer than their releases by more than this.
const releaseGuard = 15 * time.Millisecond

// hourGuard lengthens the built-in limiter's rolling hour, for the same
// reason: a request counted against the hour just before our window opens
// arrives a little after we sent it.
const hourGuard = 2 * time.Second

// maxHold is the longest the server's word holds requests back: the
// longest published window and its guard. A reset further ahead is a bad
// header, not a reason to stop a client for years.
const maxHold = time.Hour + hourGuard

// minReportedWait is the shortest Wait of a Limiter given with WithLimiter
// that is reported as a wait (WaitLimiter). Such a Wait may do I/O (a
// fleet limiter asks Redis), which takes time without holding anything
// back; a real wait for a slot lasts milliseconds at least.
const minReportedWait = time.Millisecond

// Limiter paces requests. Wait blocks until one request may be sent, and
// fails when ctx ends first or the wait is refused. Every attempt of every
// call, retries included, waits on it. Share one Limiter between the
// clients that use the same API key with WithLimiter.
//
// A Limiter written outside this package refuses a wait that is too long
// with RefuseWait, or lets CheckWait decide, which applies the max wait of
// the calling client (WithMaxWait): the client puts it into the context it
// passes to Wait.
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
// obeyed inside the process; a FeedbackLimiter is trusted to obey it
// itself, and the client holds nothing back on its behalf.
//
// The limiter NewLimiter returns is a FeedbackLimiter: the server's word
// seen by one client holds back every client sharing it.
type FeedbackLimiter interface {
	Limiter
	Feedback(ctx context.Context, f RateFeedback)
}

// RefuseWait returns the error a Limiter gives when it will not wait d for
// the rate limit, because d is longer than the caller accepts: an *APIError
// with StatusCode 0 and RetryAfter d that matches ErrRateLimited. The client
// fills in its Method, URL and Attempts. reason says why, for the error
// message; it should begin with the limit that asked for the wait, such as
// "fleet limit: wait of 2m0s exceeds the max wait of 1m0s (WithMaxWait)".
func RefuseWait(d time.Duration, reason string) *APIError {
	return &APIError{Message: reason, RetryAfter: d, kind: ErrRateLimited}
}

// CheckWait tells a Limiter whether it may wait d before letting a request
// go. It returns ctx's error when ctx has ended; nil when d is at most the
// max wait and ends before ctx's deadline; and otherwise, at once, a
// RefuseWait error saying which of the two it broke.
//
// The max wait is one setting, the client's WithMaxWait (DefaultMaxWait
// when Wait is called outside a Client): a Client puts it into the context
// it passes to Wait. maxWait is the limiter's own bound; when it is
// positive and smaller, it applies instead, and the error says it was the
// limiter's. 0 means the client's. reason names the limit that asked for
// the wait, such as "fleet limit"; the error reads, for example, "fleet
// limit: wait of 2m0s exceeds the max wait of 1m0s (WithMaxWait)".
func CheckWait(ctx context.Context, d, maxWait time.Duration, reason string) error {
	client, ok := maxWaitFrom(ctx)
	if !ok {
		client = DefaultMaxWait
	}
	limit := effectiveMaxWait(client, maxWait, "the limiter's own")
	return limit.check(ctx, d, time.Now(), reason)
}

// maxWaitKey is the context key of the calling client's max wait.
type maxWaitKey struct{}

// contextWithMaxWait returns ctx carrying the client's max wait, for a
// Limiter outside the core that calls CheckWait. Only a client with such a
// Limiter pays for it.
func contextWithMaxWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, maxWaitKey{}, d)
}

// maxWaitFrom returns the client's max wait that ctx carries, if any.
func maxWaitFrom(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(maxWaitKey{}).(time.Duration)
	return d, ok
}

// maxWaitLimit is the max wait that applies to one wait, and the name of
// the setting it comes from, for the error.
type maxWaitLimit struct {
	d    time.Duration
	name string
}

// effectiveMaxWait returns the smaller of the client's max wait and a
// limiter's own (named ownName), where own 0 means "the client's". On a
// tie the client's setting is named: it is the one users set.
func effectiveMaxWait(client, own time.Duration, ownName string) maxWaitLimit {
	if own > 0 && own < client {
		return maxWaitLimit{d: own, name: ownName}
	}
	return maxWaitLimit{d: client, name: "WithMaxWait"}
}

// check refuses a wait longer than the limit or one that would end after
// ctx's deadline, with an error matching ErrRateLimited that says how long
// the wait would have been and which bound it broke.
func (m maxWaitLimit) check(ctx context.Context, d time.Duration, now time.Time, reason string) error {
	if d <= 0 {
		return ctx.Err()
	}
	if d > m.d {
		return RefuseWait(d, reason+": wait of "+d.String()+" exceeds the max wait of "+m.d.String()+" ("+m.name+")")
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(d).After(deadline) {
		return RefuseWait(d, reason+": wait of "+d.String()+" would end after the context's deadline")
	}
	return ctx.Err()
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
// limiter shared by every client of the same key (see NewLimiter) or a
// fleet's. The server's word (a rate-limit Remaining of 0, Retry-After on
// a 429) is told to l when it is a FeedbackLimiter, and otherwise obeyed
// by the client itself.
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
// rolling hour and perSecond in any rolling second, each window kept a
// little longer than published (see the README). It is a FeedbackLimiter,
// safe for concurrent use; pass it to several clients with WithLimiter to
// share one budget, and the server's word seen by one of them.
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

// attemptLimiter is what limitedTransport uses for every attempt.
type attemptLimiter interface {
	// waitTurn blocks until one request may go, recording each wait
	// (level, start, duration) in rec when rec is not nil. maxWait is the
	// calling client's WithMaxWait. The request holds the ticket's slot
	// until sent is called with it.
	waitTurn(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	// feedback tells the limiter what a response said (see rateFeedback).
	feedback(ctx context.Context, f RateFeedback)
	// sent tells the limiter that the request waitTurn released with t got
	// its response, or failed. A response means the server counted it by
	// now; a failure after the request left may still arrive later, which
	// maxTransit does not cover (failed attempts are few).
	sent(t slotTicket)
}

// newAttemptLimiter builds the attemptLimiter of a client from its
// rate-limit config: the built-in limiter, which keeps the server's word
// itself, also when it is shared (NewLimiter and WithLimiter); a
// FeedbackLimiter, told the server's word; a user's Limiter, or none, with
// the server's word kept by the client. maxWait is the client's
// WithMaxWait, the own bound of the client's built-in limiter.
func newAttemptLimiter(cfg rateLimitConfig, maxWait time.Duration, now func() time.Time) attemptLimiter {
	if cfg.off {
		return newHeldLimiter(nil, now)
	}
	switch l := cfg.limiter.(type) {
	case nil:
		return newWindowLimiter(cfg.perHour, cfg.perSecond, maxWait, now)
	case *windowLimiter:
		return l
	case FeedbackLimiter:
		return forwardingLimiter{inner: l, now: now}
	default:
		return newHeldLimiter(l, now)
	}
}

// rateFeedback reads what a response said about the rate limit: a 429
// with Retry-After, or no requests remaining until a reset still ahead,
// asks for a hold (never longer than maxHold); requests remaining, on any
// other status, lift a hold. ok is false when the response said nothing
// of the kind.
func rateFeedback(status int, h http.Header, now time.Time) (f RateFeedback, ok bool) {
	if status == http.StatusTooManyRequests {
		if d, ok := parseRetryAfter(h.Get("Retry-After"), now); ok && d > 0 {
			return RateFeedback{Hold: min(d, maxHold)}, true
		}
	}
	r := parseRate(h, now)
	switch {
	case r.exhausted(now):
		return RateFeedback{Hold: min(r.Reset.Sub(now), maxHold)}, true
	case r.Remaining > 0 && status != http.StatusTooManyRequests:
		return RateFeedback{Lift: true}, true
	}
	return RateFeedback{}, false
}

// serverHold keeps the server's last word: send nothing before a time.
// It is read on every attempt, so it is one atomic word, not a lock.
type serverHold struct {
	origin time.Time    // monotonic origin of until
	until  atomic.Int64 // nanoseconds after origin; 0: no hold
}

func (h *serverHold) init(now time.Time) { h.origin = now }

// apply moves the hold later for a Hold (never earlier, and never more
// than maxHold ahead) and clears it for a Lift.
func (h *serverHold) apply(f RateFeedback, now time.Time) {
	if f.Hold <= 0 {
		if f.Lift {
			h.until.Store(0)
		}
		return
	}
	t := int64(max(now.Sub(h.origin), 0) + min(f.Hold, maxHold))
	for {
		cur := h.until.Load()
		if cur >= t || h.until.CompareAndSwap(cur, t) {
			return
		}
	}
}

// wait sleeps until the hold ends, unless that is longer than limit.
func (h *serverHold) wait(ctx context.Context, limit maxWaitLimit, rec *waitRecords, now func() time.Time) error {
	until := h.until.Load()
	if until == 0 {
		return nil
	}
	start := now()
	d := time.Duration(until) - start.Sub(h.origin)
	if d <= 0 {
		return nil
	}
	return sleepRecorded(ctx, d, limit, WaitServer, start, rec, now)
}

// sleepRecorded waits d for the limit named by level, after checking it
// against the max wait, and records how long it actually waited.
func sleepRecorded(ctx context.Context, d time.Duration, limit maxWaitLimit, level WaitLevel, start time.Time, rec *waitRecords, now func() time.Time) error {
	if err := limit.check(ctx, d, start, levelReason(level)); err != nil {
		return err
	}
	err := sleep(ctx, d)
	rec.add(level, start, now().Sub(start), err)
	return err
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

// heldLimiter keeps the server's word inside the process around a Limiter
// that is not told it (a user's, from WithLimiter), or around none
// (WithoutRateLimit).
type heldLimiter struct {
	inner Limiter // nil: no client-side limit
	hold  serverHold
	now   func() time.Time
}

func newHeldLimiter(inner Limiter, now func() time.Time) *heldLimiter {
	l := &heldLimiter{inner: inner, now: now}
	l.hold.init(now())
	return l
}

func (l *heldLimiter) waitTurn(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if err := l.hold.wait(ctx, effectiveMaxWait(maxWait, 0, ""), rec, l.now); err != nil {
		return slotTicket{}, err
	}
	if l.inner == nil {
		return slotTicket{}, ctx.Err()
	}
	return slotTicket{}, waitExternal(ctx, l.inner, maxWait, rec, l.now)
}

func (l *heldLimiter) feedback(_ context.Context, f RateFeedback) { l.hold.apply(f, l.now()) }

// sent is a no-op: a Limiter from outside paces by its own clock.
func (l *heldLimiter) sent(slotTicket) {}

// forwardingLimiter tells a FeedbackLimiter (a fleet's) what the server
// said and holds nothing back itself: the limiter holds back every
// process that shares it.
type forwardingLimiter struct {
	inner FeedbackLimiter
	now   func() time.Time
}

// sent is a no-op: a fleet limiter paces by its own clock.
func (l forwardingLimiter) sent(slotTicket) {}

func (l forwardingLimiter) waitTurn(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	return slotTicket{}, waitExternal(ctx, l.inner, maxWait, rec, l.now)
}

func (l forwardingLimiter) feedback(ctx context.Context, f RateFeedback) { l.inner.Feedback(ctx, f) }

// waitExternal waits for a Limiter from outside the core, which learns
// the client's max wait from the context (CheckWait reads it), and
// records the wait when it held the request back.
func waitExternal(ctx context.Context, l Limiter, maxWait time.Duration, rec *waitRecords, now func() time.Time) error {
	start := now()
	err := l.Wait(contextWithMaxWait(ctx, maxWait))
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
	return err
}

// windowLimiter is the built-in limiter: two exact rolling windows, kept
// as the release times of the last perSecond and the last perHour
// requests, and the server's word. A request may go when the oldest
// release of each full window has left it; both windows are checked and
// the slot reserved in one step under one lock. A token bucket would
// either make every request wait behind the one before (burst 1: 20 ms
// apart at 50/s even from idle) or, for the hour, let a full burst
// through and refill behind it: about twice the limit in the first hour.
type windowLimiter struct {
	maxWait time.Duration // NewLimiter's own bound; 0: the client's
	now     func() time.Time
	hold    serverHold

	mu     sync.Mutex
	origin time.Time // monotonic origin of the release times
	second secondWindow
	hour   window
	last   time.Duration // the latest release reserved
	seq    uint64        // reservations made, to give back only the newest
}

func newWindowLimiter(perHour, perSecond int, maxWait time.Duration, now func() time.Time) *windowLimiter {
	start := now()
	l := &windowLimiter{
		maxWait: maxWait,
		now:     now,
		origin:  start,
		second:  newSecondWindow(perSecond),
		hour:    window{span: time.Hour + hourGuard, size: perHour},
		last:    math.MinInt64,
	}
	l.hold.init(start)
	return l
}

// Wait blocks until the server's word and both windows allow one more
// request, within the max wait (see NewLimiter).
func (l *windowLimiter) Wait(ctx context.Context) error {
	client, ok := maxWaitFrom(ctx)
	if !ok {
		client = DefaultMaxWait
	}
	t, err := l.waitTurn(ctx, client, nil)
	// The limiter never hears of this request's response: count it from
	// its release, with the wider guard.
	l.mu.Lock()
	l.second.complete(t, l.now().Sub(l.origin)+time.Second+releaseGuard)
	l.mu.Unlock()
	return err
}

// Feedback holds every request sharing the limiter back for f.Hold, or
// lifts the hold (see RateFeedback).
func (l *windowLimiter) Feedback(_ context.Context, f RateFeedback) { l.hold.apply(f, l.now()) }

func (l *windowLimiter) feedback(ctx context.Context, f RateFeedback) { l.Feedback(ctx, f) }

// sent tells the limiter the request t names got its response: the
// server counted it by now, so it counts for one second more (and the
// guard), if that is sooner than its release allowed for.
func (l *windowLimiter) sent(t slotTicket) {
	if !t.valid {
		return
	}
	l.mu.Lock()
	l.second.complete(t, l.now().Sub(l.origin)+time.Second+secondGuard)
	l.mu.Unlock()
}

func (l *windowLimiter) waitTurn(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	limit := effectiveMaxWait(maxWait, l.maxWait, "NewLimiter")
	if err := l.hold.wait(ctx, limit, rec, l.now); err != nil {
		return slotTicket{}, err
	}
	return l.waitWindows(ctx, limit, rec)
}

// waitWindows reserves the earliest release both windows allow, then
// sleeps until it; the request counts in the second until a second after
// sent (see secondWindow). A wait cut short by ctx gives the slot back.
func (l *windowLimiter) waitWindows(ctx context.Context, limit maxWaitLimit, rec *waitRecords) (slotTicket, error) {
	l.mu.Lock()
	// The clock is read under the lock, so that releases come in order
	// and a request that found the limit free does not wait behind one
	// that read the clock a moment later.
	start := l.now()
	at := start.Sub(l.origin)
	secFree, hourFree := l.second.earliest(), l.hour.free()
	release := max(at, secFree, hourFree, l.last)
	delay := release - at
	level := WaitPerSecond
	if hourFree > secFree {
		level = WaitPerHour
	}
	if err := limit.check(ctx, delay, start, levelReason(level)); err != nil {
		l.mu.Unlock()
		return slotTicket{}, err
	}
	r := l.reserve(release)
	l.mu.Unlock()
	if delay <= 0 {
		return r.second, nil
	}
	err := sleep(ctx, delay)
	rec.add(level, start, l.now().Sub(start), err)
	if err != nil {
		l.giveBack(r)
		return slotTicket{}, err
	}
	return r.second, nil
}

// reservation is what giveBack needs to undo one reserve.
type reservation struct {
	seq    uint64
	second slotTicket
	prev   secondSlot // the second's slot before the reservation took it
	hour   slot
	last   time.Duration
}

// reserve records a release at at in both windows. Callers hold l.mu.
func (l *windowLimiter) reserve(at time.Duration) reservation {
	r := reservation{last: l.last, hour: l.hour.push(at)}
	r.second, r.prev = l.second.take(at + maxTransit + time.Second + secondGuard)
	l.last = at
	l.seq++
	r.seq = l.seq
	return r
}

// giveBack undoes r: the slot of the second always, since nothing was
// sent; the hour and the order of releases only when r is still the
// newest reservation. An older one stays: later releases were computed
// from it, and keeping a slot that is not used only ever sends less.
func (l *windowLimiter) giveBack(r reservation) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.second.restore(r.second, r.prev)
	if l.seq != r.seq {
		return
	}
	l.hour.undo(r.hour)
	l.last = r.last
	l.seq--
}

// secondWindow is the rolling second of the built-in limiter as up to
// perSecond slots, each holding when it frees. A request takes the slot
// that frees first and goes no earlier. Its slot frees a second (and
// secondGuard) after its response, which is when the server last counted
// it, or after release + maxTransit, when the response is slower: so at
// most perSecond requests ever count in any second on the server's clock,
// however late each arrived. The slots are kept in a min-heap by when
// they free, so a limit of a million a second costs what fifty do.
type secondWindow struct {
	size  int
	slots []secondSlot // grown to size as needed; a ticket's idx is stable
	heap  []int        // slot indexes, the slot that frees first on top
	gen   uint64
}

// secondSlot is one slot of the second.
type secondSlot struct {
	frees time.Duration // since the limiter's origin
	gen   uint64        // the ticket that holds it
	pos   int           // its place in the heap
}

// slotTicket names the slot a request holds, and which holding.
type slotTicket struct {
	idx   int
	gen   uint64
	valid bool
}

func newSecondWindow(perSecond int) secondWindow {
	return secondWindow{size: perSecond}
}

// earliest returns when the slot that frees first frees: at once while
// fewer than size slots exist.
func (w *secondWindow) earliest() time.Duration {
	if len(w.slots) < w.size {
		return math.MinInt64
	}
	return w.slots[w.heap[0]].frees
}

// take holds the slot that frees first until frees, and returns its
// ticket and what the slot held before.
func (w *secondWindow) take(frees time.Duration) (slotTicket, secondSlot) {
	var idx int
	if len(w.slots) < w.size {
		idx = len(w.slots)
		w.slots = append(w.slots, secondSlot{frees: math.MinInt64, pos: len(w.heap)})
		w.heap = append(w.heap, idx)
	} else {
		idx = w.heap[0]
	}
	prev := w.slots[idx]
	w.gen++
	w.set(idx, frees, w.gen)
	return slotTicket{idx: idx, gen: w.gen, valid: true}, prev
}

// complete moves t's slot to free at frees, if that is sooner.
func (w *secondWindow) complete(t slotTicket, frees time.Duration) {
	if t.valid && w.slots[t.idx].gen == t.gen && frees < w.slots[t.idx].frees {
		w.set(t.idx, frees, t.gen)
	}
}

// restore gives t's slot back as it was, when t still holds it.
func (w *secondWindow) restore(t slotTicket, prev secondSlot) {
	if t.valid && w.slots[t.idx].gen == t.gen {
		w.set(t.idx, prev.frees, prev.gen)
	}
}

// set changes a slot and restores the heap order around it.
func (w *secondWindow) set(idx int, frees time.Duration, gen uint64) {
	s := &w.slots[idx]
	s.frees, s.gen = frees, gen
	w.up(s.pos)
	w.down(s.pos)
}

func (w *secondWindow) less(i, j int) bool {
	return w.slots[w.heap[i]].frees < w.slots[w.heap[j]].frees
}

func (w *secondWindow) swap(i, j int) {
	w.heap[i], w.heap[j] = w.heap[j], w.heap[i]
	w.slots[w.heap[i]].pos = i
	w.slots[w.heap[j]].pos = j
}

func (w *secondWindow) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !w.less(i, parent) {
			return
		}
		w.swap(i, parent)
		i = parent
	}
}

func (w *secondWindow) down(i int) {
	for {
		least, left, right := i, 2*i+1, 2*i+2
		if left < len(w.heap) && w.less(left, least) {
			least = left
		}
		if right < len(w.heap) && w.less(right, least) {
			least = right
		}
		if least == i {
			return
		}
		w.swap(i, least)
		i = least
	}
}

// held returns how many slots are not yet free at now.
func (w *secondWindow) held(now time.Duration) int {
	n := 0
	for _, s := range w.slots {
		if s.frees > now {
			n++
		}
	}
	return n
}

// window is one rolling window: the release times (since the limiter's
// origin) of the last size requests, a ring once full, oldest at next.
type window struct {
	span time.Duration // the window and its guard
	size int
	ring []time.Duration
	next int
}

// free returns the earliest release the window allows: once the oldest
// of the last size releases has left it.
func (w *window) free() time.Duration {
	if len(w.ring) < w.size {
		return math.MinInt64
	}
	return w.ring[w.next] + w.span
}

// slot is where push put a release, and what it replaced.
type slot struct {
	idx      int
	prev     time.Duration
	appended bool
}

func (w *window) push(at time.Duration) slot {
	if len(w.ring) < w.size {
		w.ring = append(w.ring, at)
		return slot{idx: len(w.ring) - 1, appended: true}
	}
	s := slot{idx: w.next, prev: w.ring[w.next]}
	w.ring[w.next] = at
	w.next = (w.next + 1) % w.size
	return s
}

func (w *window) undo(s slot) {
	if s.appended {
		w.ring = w.ring[:s.idx]
		return
	}
	w.ring[s.idx] = s.prev
	w.next = s.idx
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
