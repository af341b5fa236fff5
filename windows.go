package seoapi

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"time"
)

// The guards and the transit time behind the windows (docs/limiter.md has
// the measurements behind each).
const (
	// secondGuard lengthens the rolling second of a request counted from
	// its answer or its failure, for timer and clock granularity.
	secondGuard = 5 * time.Millisecond
	// releaseGuard lengthens the rolling second of a request let go by
	// Wait, counted from its release: the limiter never hears its answer.
	releaseGuard = 15 * time.Millisecond
	// maxTransit is how late after its release a request is assumed to
	// reach the server at the latest.
	maxTransit = time.Second
	// hourGuard lengthens the rolling hour: a request arrives a little
	// after its release.
	hourGuard = 2 * time.Second
	// hourSpan is how long a request holds its slot of the hour.
	hourSpan = time.Hour + hourGuard
	// secondSpan is how long after its release a request holds its slot
	// of the second until its answer or its failure says otherwise.
	secondSpan = maxTransit + time.Second + secondGuard
)

// windowLimiter is the built-in limiter: two exact rolling windows and the
// server's hold. A request may go when both windows have a free slot; both
// are checked and both slots taken in one step under one lock, so the two
// never disagree (why not a token bucket: docs/limiter.md). Requests are
// let go in the order they asked, each no earlier than the one before.
type windowLimiter struct {
	maxWait time.Duration // NewLimiter's own bound; 0: the client's
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error // tests replace it
	hold    serverHold

	mu     sync.Mutex
	origin time.Time // times in the windows are durations since origin
	second window    // a slot until a second after the server last counted the request
	hour   window    // a slot until an hour after the release
	lastID uint64
}

func newWindowLimiter(perHour, perSecond int, maxWait time.Duration, now func() time.Time) *windowLimiter {
	return &windowLimiter{
		maxWait: maxWait,
		now:     now,
		sleep:   sleep,
		origin:  now(),
		second:  window{size: perSecond},
		hour:    window{size: perHour},
	}
}

// Wait blocks until the server's hold and both windows allow one more
// request, within the max wait (see NewLimiter).
func (l *windowLimiter) Wait(ctx context.Context) error {
	t, err := l.take(ctx, clientMaxWait(ctx), nil, windowReserve{})
	if err == nil {
		// The limiter never hears of this request's answer: count it from
		// its release, with the wider guard.
		l.recount(t, t.sent, releaseGuard, true)
	}
	return err
}

// Acquire waits as Wait does and returns answered, after which the
// request counts in the rolling second for one second more (and the
// guard), as a Client's own requests do (see SlotLimiter).
func (l *windowLimiter) Acquire(ctx context.Context) (answered func(), err error) {
	t, err := l.take(ctx, clientMaxWait(ctx), nil, windowReserve{})
	if err != nil {
		return nil, err
	}
	return func() { l.done(t, true) }, nil
}

// Feedback holds every request sharing the limiter back for f.Hold, or
// lifts a hold that was asked for before this call (see RateFeedback).
func (l *windowLimiter) Feedback(_ context.Context, f RateFeedback) {
	now := l.now()
	l.hold.apply(f, now, now)
}

func (l *windowLimiter) feedback(_ context.Context, t slotTicket, f RateFeedback) {
	l.hold.apply(f, t.sent, l.now())
}

// Budget returns the limits, the slots held in each window now (requests
// waiting for their turn included) and the end of the server's hold.
func (l *windowLimiter) Budget(context.Context) (Budget, error) {
	now := l.now()
	l.mu.Lock()
	at := now.Sub(l.origin)
	b := Budget{
		PerHour: l.hour.size, PerSecond: l.second.size,
		UsedHour: l.hour.held(at), UsedSecond: l.second.held(at),
	}
	l.mu.Unlock()
	b.HoldUntil = l.hold.end(now)
	return b, nil
}

// done tells the limiter that t's request got an answer (answered) or
// failed after it may have been sent. An answer means the server counted
// it by now: its slot of the second frees a second (and the guard) after
// the answer, if that is sooner than its release allowed for. A request
// that failed may still reach the server until release + maxTransit, or
// reached it just before the failure: its slot frees a second (and the
// guard) after the later of the two. Its slot of the hour stays as it was
// taken, an hour after its release.
func (l *windowLimiter) done(t slotTicket, answered bool) {
	l.recount(t, l.now(), secondGuard, answered)
}

// recount moves t's slot of the second to free a second and guard after
// counted: sooner only, when the server counted the request by then;
// later also, when it may still arrive. A slot already freed is taken
// again for a request that may still arrive.
func (l *windowLimiter) recount(t slotTicket, counted time.Time, guard time.Duration, answered bool) {
	if t.id == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	taken := slot{frees: t.sent.Sub(l.origin) + secondSpan, id: t.id}
	frees := counted.Sub(l.origin) + time.Second + guard
	if answered {
		frees = min(frees, taken.frees)
	} else {
		frees = max(frees, taken.frees)
	}
	if l.second.remove(taken) || !answered {
		l.second.add(slot{frees: frees, id: t.id})
	}
}

// take waits for the server's hold and then for the windows, leaving keep
// free in them for the other clients sharing the limiter (WithReserve).
// A request its reserve holds back waits without a place in line: it
// sleeps until the reserve allows it, keeps a hold the server asked for
// meanwhile, and looks again. Its whole wait is checked against the max
// wait and recorded once.
func (l *windowLimiter) take(ctx context.Context, maxWait time.Duration, rec *waitRecords, keep windowReserve) (slotTicket, error) {
	limit := effectiveMaxWait(maxWait, l.maxWait, "NewLimiter")
	if err := l.hold.wait(ctx, limit, rec, l.now, l.sleep); err != nil {
		return slotTicket{}, err
	}
	start := l.now()
	slept := false
	for {
		t, d, level, err := l.reserve(ctx, limit, keep, start)
		if err == nil && d > 0 {
			err, slept = l.sleep(ctx, d), true
		}
		if err == nil && t.id == 0 { // held back by the reserve
			err = l.hold.wait(ctx, limit, rec, l.now, l.sleep)
			if err == nil {
				continue
			}
		}
		if slept {
			rec.add(level, start, l.now().Sub(start), causeIf(err != nil && ctx.Err() != nil, ctx))
		}
		if err != nil {
			l.giveBack(t)
			return slotTicket{}, err
		}
		return t, nil
	}
}

// reserve takes a slot in both windows at the earliest release they allow
// and returns its ticket and how long to wait for it. When the reserve
// allows only a later release, it takes nothing and returns the wait for
// that release. A wait from start longer than limit is refused.
func (l *windowLimiter) reserve(ctx context.Context, limit maxWaitLimit, keep windowReserve, start time.Time) (slotTicket, time.Duration, WaitLevel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The clock is read under the lock, so that releases come in order.
	now := l.now()
	at := now.Sub(l.origin)
	release, level := l.earliest(at, windowReserve{})
	kept, keptLevel := l.earliest(at, keep)
	reason := levelReason(keptLevel)
	if kept > release {
		reason += " keeping the reserve (WithReserve)"
	}
	wait := kept - at
	if wait > 0 {
		wait += now.Sub(start) // the whole wait, from the first look
	}
	if err := limit.check(ctx, wait, start, reason); err != nil {
		return slotTicket{}, 0, keptLevel, err
	}
	if kept > release {
		return slotTicket{}, kept - at, keptLevel, nil
	}
	l.lastID++
	l.hour.add(slot{frees: release + hourSpan, id: l.lastID})
	l.second.add(slot{frees: release + secondSpan, id: l.lastID})
	return slotTicket{sent: l.origin.Add(release), id: l.lastID}, release - at, level, nil
}

// earliest returns the earliest release at or after at that leaves keep
// free in both windows and follows the last release taken, and the window
// that asks for the later one. Callers hold l.mu.
func (l *windowLimiter) earliest(at time.Duration, keep windowReserve) (time.Duration, WaitLevel) {
	second, hour := l.second.free(at, keep.perSecond), l.hour.free(at, keep.perHour)
	last := time.Duration(math.MinInt64)
	if n := len(l.hour.slots); n > 0 {
		last = l.hour.slots[n-1].frees - hourSpan
	}
	level := WaitPerSecond
	if hour > second {
		level = WaitPerHour
	}
	return max(at, second, hour, last), level
}

// giveBack frees both slots of a request that was never sent.
func (l *windowLimiter) giveBack(t slotTicket) {
	if t.id == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	release := t.sent.Sub(l.origin)
	l.hour.remove(slot{frees: release + hourSpan, id: t.id})
	l.second.remove(slot{frees: release + secondSpan, id: t.id})
}

// windowReserve is how many slots of each window a client leaves free for
// the other clients sharing its limiter (WithReserve).
type windowReserve struct{ perHour, perSecond int }

// window is one rolling window: the slots held in it, in the order they
// free. The second holds about its size of them, the hour its size.
type window struct {
	size  int
	slots []slot
}

// slot is one request's place in a window: when it frees (since the
// limiter's origin) and which request holds it.
type slot struct {
	frees time.Duration
	id    uint64
}

func compareSlots(a, b slot) int {
	return cmp.Or(cmp.Compare(a.frees, b.frees), cmp.Compare(a.id, b.id))
}

// free returns the earliest time at or after at when a slot can be taken
// leaving keep of them free: once all but size-keep-1 of the slots held
// have freed.
func (w *window) free(at time.Duration, keep int) time.Duration {
	w.drop(at)
	n := w.size - keep // slots that may be held once this one is taken
	if len(w.slots) < n {
		return math.MinInt64
	}
	return w.slots[len(w.slots)-n].frees
}

// held returns how many slots are held at at.
func (w *window) held(at time.Duration) int {
	w.drop(at)
	return len(w.slots)
}

// drop forgets the slots that have freed by at.
func (w *window) drop(at time.Duration) {
	i := 0
	for i < len(w.slots) && w.slots[i].frees <= at {
		i++
	}
	w.slots = w.slots[i:]
}

func (w *window) add(s slot) {
	i, _ := slices.BinarySearchFunc(w.slots, s, compareSlots)
	w.slots = slices.Insert(w.slots, i, s)
}

// remove frees s, and reports whether it was still held.
func (w *window) remove(s slot) bool {
	i, found := slices.BinarySearchFunc(w.slots, s, compareSlots)
	if found {
		w.slots = slices.Delete(w.slots, i, i+1)
	}
	return found
}
