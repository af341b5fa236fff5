package seoapi

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The published limits of the API.
const (
	DefaultRequestsPerHour   = 10000
	DefaultRequestsPerSecond = 50
)

// The slot rule. A server counts a request when it arrives, somewhere
// between its release and its answer, and at the latest maxTransit after
// its release. So a request holds a slot of the rolling second from its
// release:
//   - answered, until a second after its answer, or after release +
//     maxTransit when that is sooner;
//   - with no answer (a timeout, a reset, a context that ended in flight),
//     until a second after the later of its failure and release +
//     maxTransit: a late-reading server may count it until then;
//   - given up before its release, not at all: its slots are given back.
//
// A request sent holds its slot of the hour until an hour after its
// release. The rule is the same whichever limiter is behind the client:
// the transport tells the limiter, for every attempt it let go, whether
// an answer came (the done func of Limiter.Acquire).
const (
	secondGuard = 5 * time.Millisecond // added to the second: timer and clock granularity
	maxTransit  = time.Second
	hourGuard   = 2 * time.Second // added to the hour: a request arrives a little after its release
	hourSpan    = time.Hour + hourGuard
	secondSpan  = maxTransit + time.Second + secondGuard // from the release until done says how it ended
	maxHold     = hourSpan                               // the longest hold: a later reset is a bad header
)

// Limiter paces the requests of the clients that share it (WithLimiter),
// such as every client of one key in a process (NewLimiter) or in a fleet
// (redislimit). It must be safe for concurrent use.
type Limiter interface {
	// Acquire blocks until one request may be sent and returns done, which
	// the client calls once when the request was answered (true) or failed
	// without an answer (false), never when Acquire failed; the request then
	// counts as the slot rule in ratelimit.go says. maxWait is the calling
	// client's max wait (WithMaxWait); negative when it set none, and then
	// the limiter's own bound applies, or else DefaultMaxWait. A longer
	// wait, or one ending after ctx's deadline, fails at once with a
	// RefuseWait error.
	Acquire(ctx context.Context, maxWait time.Duration) (done func(answered bool), err error)
	// Hold is told what a response said of the server's limit: d > 0 asks
	// that nothing be sent for d (a 429's Retry-After, or no requests
	// remaining until a reset); d == 0 says requests remain, ending an
	// earlier hold. The client keeps the hold for its own requests; a
	// limiter shared by several clients keeps it for all of them.
	Hold(ctx context.Context, d time.Duration)
	// Budget returns what the limiter has left, sending nothing.
	Budget(ctx context.Context) (Budget, error)
}

// Budget is what a client's limiter has left: its limits less the client's
// reserve (WithReserve), the requests it counts in the current rolling hour
// and second, and HoldUntil, the end of the server's hold (zero when none).
type Budget struct {
	PerHour, PerSecond   int
	UsedHour, UsedSecond int
	HoldUntil            time.Time
}

// NewLimiter returns the built-in limiter: at most perHour requests in any
// rolling hour and perSecond in any rolling second. Clients given it with
// WithLimiter share its budget and the server's hold. maxWait, when
// positive, is the max wait of a client that set none with WithMaxWait.
func NewLimiter(perHour, perSecond int, maxWait time.Duration) (Limiter, error) {
	if perHour <= 0 || perSecond <= 0 || maxWait < 0 {
		return nil, invalidArgument("NewLimiter(%d, %d, %s): limits must be positive, maxWait not negative", perHour, perSecond, maxWait)
	}
	return newWindowLimiter(perHour, perSecond, maxWait, time.Now), nil
}

// RefuseWait returns the error a Limiter gives when it will not wait d: an
// *APIError matching ErrRateLimited with StatusCode 0 and RetryAfter d. The
// client reports it in an *APIError of its own, with the call's Method, URL
// and Attempts, that errors.Is matches to this value. reason is the
// message; it should begin with the limit that asked for the wait.
func RefuseWait(d time.Duration, reason string) *APIError {
	return &APIError{Message: reason, RetryAfter: d, kind: ErrRateLimited}
}

// Budget returns the Budget of the client's limiter, or ErrInvalidArgument
// when the limiter is off (WithoutRateLimit).
func (c *Client) Budget(ctx context.Context) (Budget, error) {
	if ctx == nil {
		return Budget{}, invalidArgument("nil context")
	}
	return c.limiter.Budget(ctx)
}

// maxWaitLimit bounds one wait by the client's max wait; when the client set
// none (negative), by the limiter's own bound (own, named ownName; 0: none),
// or else by DefaultMaxWait.
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
	if limit < 0 {
		limit = DefaultMaxWait
		if m.own > 0 {
			limit, name = m.own, m.ownName
		}
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
	err   error // why the wait failed: the context ended, or the Limiter's error
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
	hour, second time.Duration       // the built-in limiter's: when its slots free, since its origin
	done         func(answered bool) // another Limiter's
}

// attemptLimiter is a client's limiter as the transport uses it: acquire
// waits within maxWait, recording each wait in rec; done says whether the
// request was answered; feedback, what the answer to a request sent at sent
// said of the server's hold (see Limiter.Hold).
type attemptLimiter interface {
	acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error)
	done(t slotTicket, answered bool)
	feedback(ctx context.Context, sent time.Time, d time.Duration)
	Budget(ctx context.Context) (Budget, error)
}

// newAttemptLimiter returns a client's limiter: the built-in one (its own
// or a shared one) with its reserve, another Limiter, or none.
func newAttemptLimiter(cfg rateLimitConfig, now func() time.Time) attemptLimiter {
	switch l := cfg.limiter.(type) {
	case *windowLimiter:
		return builtinLimiter{windowLimiter: l, reserve: cfg.reserve}
	case nil:
		if !cfg.off {
			return builtinLimiter{windowLimiter: newWindowLimiter(cfg.perHour, cfg.perSecond, 0, now), reserve: cfg.reserve}
		}
	}
	return &otherLimiter{serverHold: serverHold{now: now, sleep: sleep}, inner: cfg.limiter}
}

// withReserve returns l with the reserve perHour and perSecond instead of
// its own, sharing l's windows and server hold. It fails with
// ErrInvalidArgument when l is not the built-in limiter or the reserve is
// negative or not smaller than its limits.
func withReserve(l attemptLimiter, perHour, perSecond int) (attemptLimiter, error) {
	b, ok := l.(builtinLimiter)
	if !ok {
		return nil, invalidArgument("WithReserve(%d, %d): the client's limiter is off or is not the built-in one (NewLimiter); use that limiter's own reserve (such as redislimit.WithReserve)", perHour, perSecond)
	}
	if perHour < 0 || perSecond < 0 || perHour >= b.hour.size || perSecond >= b.second.size {
		return nil, invalidArgument("WithReserve(%d, %d): a reserve must be at least 0 and smaller than the client's limits, %d an hour and %d a second", perHour, perSecond, b.hour.size, b.second.size)
	}
	b.reserve = windowReserve{perHour: perHour, perSecond: perSecond}
	return b, nil
}

// windowReserve is what a client leaves free in each window (WithReserve).
type windowReserve struct{ perHour, perSecond int }

// otherLimiter is a Limiter from outside the core, or none, behind the
// server's hold, which the client keeps for its own requests whatever the
// Limiter does with it.
type otherLimiter struct {
	serverHold
	inner Limiter // nil: none
}

// minReportedWait is the shortest wait of another Limiter recorded: a
// fleet limiter's round trip is no wait.
const minReportedWait = time.Millisecond

func (l *otherLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if err := l.waitOut(ctx, maxWaitLimit{client: maxWait}, rec); err != nil || l.inner == nil {
		return slotTicket{}, cmp.Or(err, ctx.Err())
	}
	start := l.now()
	done, err := l.inner.Acquire(ctx, maxWait)
	// A wait is recorded when it took time or failed; a refusal to wait
	// is no wait, and the call's error reports it.
	if d := l.now().Sub(start); d >= minReportedWait || err != nil && !errors.As(err, new(*APIError)) {
		rec.add(WaitLimiter, start, d, err)
	}
	return slotTicket{done: done}, err
}

func (l *otherLimiter) done(t slotTicket, answered bool) {
	if t.done != nil {
		t.done(answered)
	}
}

// feedback keeps the hold and tells the Limiter, unless it is a stale lift.
func (l *otherLimiter) feedback(ctx context.Context, sent time.Time, d time.Duration) {
	if l.update(sent, d) && l.inner != nil {
		l.inner.Hold(ctx, d)
	}
}

// Budget is the Limiter's, with the hold the client keeps.
func (l *otherLimiter) Budget(ctx context.Context) (Budget, error) {
	if l.inner == nil {
		return Budget{}, invalidArgument("Budget: the client's limiter is off (WithoutRateLimit)")
	}
	b, err := l.inner.Budget(ctx)
	if until := l.end(); err == nil && until.After(b.HoldUntil) {
		b.HoldUntil = until
	}
	return b, err
}

// windowLimiter is the built-in limiter: two exact rolling windows and the
// server's hold, under the hold's lock. A request takes both slots at
// once, each release no earlier than the one before.
type windowLimiter struct {
	serverHold
	maxWait time.Duration // NewLimiter's, for a client that set none; 0: none
	origin  time.Time     // times in the windows are durations since origin
	second  window
	hour    window
}

func newWindowLimiter(perHour, perSecond int, maxWait time.Duration, now func() time.Time) *windowLimiter {
	return &windowLimiter{serverHold: serverHold{now: now, sleep: sleep}, maxWait: maxWait, origin: now(),
		second: window{size: perSecond}, hour: window{size: perHour}}
}

// Acquire waits for both windows and the server's hold (see Limiter).
func (l *windowLimiter) Acquire(ctx context.Context, maxWait time.Duration) (func(answered bool), error) {
	t, err := builtinLimiter{windowLimiter: l}.acquire(ctx, maxWait, nil)
	if err != nil {
		return nil, err
	}
	var called atomic.Bool
	return func(answered bool) {
		if !called.Swap(true) {
			l.done(t, answered)
		}
	}, nil
}

// Hold holds back, or lets go, every request sharing the limiter.
func (l *windowLimiter) Hold(_ context.Context, d time.Duration) { l.update(l.now(), d) }

// Budget returns the limits, the slots held (by waiting requests too) and
// the end of the server's hold.
func (l *windowLimiter) Budget(ctx context.Context) (Budget, error) {
	return builtinLimiter{windowLimiter: l}.Budget(ctx)
}

// done moves t's slot of the second to a second after now: sooner when
// answered, later (taken again if it freed meanwhile) when it failed.
func (l *windowLimiter) done(t slotTicket, answered bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := l.now().Sub(l.origin)
	frees := at + time.Second + secondGuard
	switch held := l.second.remove(t.second); {
	case !answered:
		l.second.add(max(frees, t.second), at)
	case held:
		l.second.add(min(frees, t.second), at)
	}
}

// giveBack frees both slots of a request that was never sent, if it took any.
func (l *windowLimiter) giveBack(t slotTicket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hour.remove(t.hour)
	l.second.remove(t.second)
}

// builtinLimiter is the built-in limiter with one client's reserve.
type builtinLimiter struct {
	*windowLimiter
	reserve windowReserve
}

// acquire waits out the server's hold, then takes both slots and waits for
// their release. A request its reserve holds back takes no slot while it
// waits, so that it keeps no one else waiting, and looks again; so does one
// that finds a hold set meanwhile.
func (l builtinLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	if err := ctx.Err(); err != nil {
		return slotTicket{}, err
	}
	limit := maxWaitLimit{client: maxWait, own: l.maxWait, ownName: "NewLimiter"}
	start := l.now() // a window's wait counts from its first look
	var waited WaitLevel
	for {
		t, wait, level, err := l.take(ctx, limit, start)
		switch {
		case err == nil && level == WaitServer:
			err = l.waitOut(ctx, limit, rec)
			if waited == "" {
				start = l.now()
			}
			if err == nil {
				continue
			}
		case err == nil && wait > 0:
			waited, err = level, l.sleep(ctx, wait)
			if err == nil && (t.hour == 0 || !l.end().IsZero()) {
				l.giveBack(t)
				continue
			}
		}
		if waited != "" {
			rec.add(waited, start, l.now().Sub(start), ctx.Err())
		}
		if err != nil {
			l.giveBack(t)
			return slotTicket{}, err
		}
		return t, nil
	}
}

// take returns the wait for the earliest release that leaves the reserve
// free, and takes both slots for it; none under a hold (WaitServer) or
// when the reserve holds the request back.
func (l builtinLimiter) take(ctx context.Context, limit maxWaitLimit, start time.Time) (slotTicket, time.Duration, WaitLevel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now() // read under the lock: releases come in order
	if l.until.After(now) {
		return slotTicket{}, 0, WaitServer, nil
	}
	at := now.Sub(l.origin)
	first := at
	if n := len(l.hour.ends); n > 0 {
		first = max(at, l.hour.ends[n-1]-hourSpan) // after the last release
	}
	hour, sec := l.hour.free(l.reserve.perHour), l.second.free(l.reserve.perSecond)
	release, level := max(first, hour, sec), WaitPerSecond
	if hour > sec {
		level = WaitPerHour
	}
	wait := release - at
	reserved := release > max(first, l.hour.free(0), l.second.free(0))
	if wait > 0 {
		reason := levelReasons[level]
		if reserved {
			reason += " keeping the reserve (WithReserve)"
		}
		if err := limit.check(ctx, wait+now.Sub(start), start, reason); err != nil {
			return slotTicket{}, 0, level, err
		}
	}
	if reserved {
		return slotTicket{}, wait, level, nil
	}
	t := slotTicket{hour: release + hourSpan, second: release + secondSpan}
	l.hour.add(t.hour, at)
	l.second.add(t.second, at)
	return t, wait, level, nil
}

func (l builtinLimiter) feedback(_ context.Context, sent time.Time, d time.Duration) {
	l.update(sent, d)
}

// Budget is the limiter's, with its limits less the client's reserve.
func (l builtinLimiter) Budget(context.Context) (Budget, error) {
	l.mu.Lock()
	at := l.now().Sub(l.origin)
	b := Budget{PerHour: l.hour.size - l.reserve.perHour, PerSecond: l.second.size - l.reserve.perSecond,
		UsedHour: l.hour.held(at), UsedSecond: l.second.held(at)}
	l.mu.Unlock()
	b.HoldUntil = l.end()
	return b, nil
}

// window is one rolling window: when each slot frees, in ascending order.
type window struct {
	size int
	ends []time.Duration
}

// free returns when one more slot may be taken leaving reserve free: when
// the (size-reserve)-th slot from the end frees, or math.MinInt64.
func (w *window) free(reserve int) time.Duration {
	if n := w.size - reserve; len(w.ends) >= n {
		return w.ends[len(w.ends)-n]
	}
	return math.MinInt64
}

func (w *window) held(at time.Duration) int {
	freed, _ := slices.BinarySearch(w.ends, at+1)
	return len(w.ends) - freed
}

// add holds a slot until end. It drops the slots freed at at once they
// are half the slice: the slice is reused and dropping costs O(1) a slot.
func (w *window) add(end, at time.Duration) {
	if freed, _ := slices.BinarySearch(w.ends, at+1); freed > 0 && 2*freed >= len(w.ends) {
		w.ends = w.ends[:copy(w.ends, w.ends[freed:])]
	}
	i, _ := slices.BinarySearch(w.ends, end)
	w.ends = slices.Insert(w.ends, i, end)
}

// remove drops a slot held until end, and reports whether there was one.
func (w *window) remove(end time.Duration) bool {
	i, found := slices.BinarySearch(w.ends, end)
	if found {
		w.ends = slices.Delete(w.ends, i, i+1)
	}
	return found
}

// serverHold is the server's hold: nothing is sent before until.
type serverHold struct {
	mu      sync.Mutex
	until   time.Time // zero: none
	askedAt time.Time // when the last hold was asked for
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error // tests replace it
}

// update moves the hold later for d > 0 (at most maxHold ahead) or ends it
// for d == 0, as the answer to a request sent at sent said. It ignores, and
// reports false for, an end from a request sent before the last hold was
// asked for: the server may have counted that request before its limit.
func (h *serverHold) update(sent time.Time, d time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	switch {
	case d > 0:
		h.askedAt = now
		if until := now.Add(min(d, maxHold)); until.After(h.until) {
			h.until = until
		}
	case h.askedAt.After(sent):
		return false
	default:
		h.until = time.Time{}
	}
	return true
}

// end returns when the hold ends; zero when none is ahead.
func (h *serverHold) end() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until.After(h.now()) {
		return h.until
	}
	return time.Time{}
}

// waitOut waits for the hold to end, unless limit refuses, and records it.
func (h *serverHold) waitOut(ctx context.Context, limit maxWaitLimit, rec *waitRecords) error {
	start := h.now()
	d := h.end().Sub(start) // negative when no hold is ahead
	if d <= 0 {
		return nil
	}
	if err := limit.check(ctx, d, start, levelReasons[WaitServer]); err != nil {
		return err
	}
	err := h.sleep(ctx, d)
	rec.add(WaitServer, start, h.now().Sub(start), ctx.Err())
	return err
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Rate is what the server said about its rate limit in the response.
type Rate struct {
	Limit     int       // requests allowed in the server's window
	Remaining int       // requests left in the window
	Reset     time.Time // when the window resets; zero when not sent
}

// rateHeaders is what a response's headers say, read once per response.
type rateHeaders struct {
	rate      Rate
	requestID string
	exhausted bool          // no requests remain until a reset still ahead
	wait      time.Duration // the wait asked for: Retry-After, else an exhausted limit's reset
	asked     bool          // the server asked for wait
}

// readRateHeaders reads h, whose values are already cleaned of the key.
// A reset over a billion seconds (no window is 31 years long) and at most
// 1e12 is a Unix time; else it is read as a Retry-After is.
func readRateHeaders(h http.Header, now time.Time) rateHeaders {
	r := rateHeaders{requestID: cmp.Or(h.Get("X-Request-Id"), h.Get("Request-Id"))}
	for _, prefix := range [...]string{"X-Ratelimit-", "Ratelimit-"} { // canonical keys
		remaining, ok := headerInt(h, prefix+"Remaining")
		if !ok {
			continue
		}
		r.rate.Remaining = remaining
		r.rate.Limit, _ = headerInt(h, prefix+"Limit")
		reset := h.Get(prefix + "Reset")
		secs, err := strconv.ParseFloat(strings.TrimSpace(reset), 64)
		d, ok := parseRetryAfter(reset, now)
		switch {
		case err == nil && secs > 1e9 && secs <= 1e12:
			r.rate.Reset = time.UnixMicro(int64(secs * 1e6))
		case ok && d <= 1e9*time.Second: // the monotonic reading is for comparisons, not for a printed Reset
			r.rate.Reset = now.Add(d).Round(0)
		}
		break
	}
	r.exhausted = r.rate.Remaining <= 0 && r.rate.Reset.After(now)
	r.wait, r.asked = parseRetryAfter(h.Get("Retry-After"), now)
	if !r.asked && r.exhausted {
		r.wait, r.asked = r.rate.Reset.Sub(now), true
	}
	return r
}

// headerInt reads an integer header; of a structured-field value such as
// "100;w=3600" it reads the number.
func headerInt(h http.Header, key string) (int, bool) {
	v, _, _ := strings.Cut(h.Get(key), ";")
	v, _, _ = strings.Cut(v, ",")
	if v = strings.TrimSpace(v); v == "" {
		return 0, false // absent: no error value to build
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// parseRetryAfter reads a Retry-After value: seconds (a fraction is
// accepted) or an HTTP date; a date past is 0. Seconds too many for a
// time.Duration are the longest one, for a caller to refuse as too long.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v = strings.TrimSpace(v); v == "" {
		return 0, false // absent: no error value to build
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case !(secs >= 0): // negative or NaN
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

// hold is what the response tells the limiter (see Limiter.Hold), if
// anything: a 429 with a wait, or no requests remaining until a reset
// ahead, asks for a hold of at most maxHold; requests remaining, on any
// other status, end it (0).
func (r *rateHeaders) hold(status int, now time.Time) (d time.Duration, ok bool) {
	switch {
	case status == http.StatusTooManyRequests && r.asked && r.wait > 0:
		// Asked without Retry-After, the limit is exhausted: the same hold.
		return min(r.wait, maxHold), true
	case r.exhausted:
		return min(r.rate.Reset.Sub(now), maxHold), true
	case r.rate.Remaining > 0 && status != http.StatusTooManyRequests:
		return 0, true
	}
	return 0, false
}
