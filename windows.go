package seoapi

import (
	"context"
	"math"
	"sync"
	"time"
)

// secondGuard lengthens the rolling second of a request counted from its
// answer: it absorbs timer and clock granularity (docs/limiter.md).
const secondGuard = 5 * time.Millisecond

// maxTransit is how late after its release a request is assumed to reach
// the server at the latest, when its answer has not come back yet; it
// bounds what a slow endpoint costs when the limit binds to half the rate
// (docs/limiter.md has the measurements behind 1 s).
const maxTransit = time.Second

// releaseGuard lengthens the rolling second of a request counted from its
// release (Wait called directly), whose answer the limiter never hears of.
const releaseGuard = 15 * time.Millisecond

// hourGuard lengthens the rolling hour: a request arrives a little after
// its release.
const hourGuard = 2 * time.Second

// windowLimiter is the built-in limiter: two exact rolling windows and the
// server's hold. A request may go when both windows have a free slot; both
// are checked and the slot taken in one step under one lock, so the levels
// never disagree (why not a token bucket: docs/limiter.md).
type windowLimiter struct {
	maxWait time.Duration // NewLimiter's own bound; 0: the client's
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error // sleep; tests stop it
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
		sleep:   sleep,
		origin:  start,
		second:  newSecondWindow(perSecond),
		hour:    window{span: time.Hour + hourGuard, size: perHour},
		last:    math.MinInt64,
	}
	l.hold.init(start)
	return l
}

// reserving returns the attemptLimiter of a client that leaves r free for
// the others (WithReserve): l itself when r is zero.
func (l *windowLimiter) reserving(r windowReserve) attemptLimiter {
	if r == (windowReserve{}) {
		return l
	}
	return reservingLimiter{windowLimiter: l, reserve: r}
}

// Wait blocks until the server's hold and both windows allow one more
// request, within the max wait (see NewLimiter).
func (l *windowLimiter) Wait(ctx context.Context) error {
	t, err := l.acquire(ctx, clientMaxWait(ctx), nil)
	// The limiter never hears of this request's response: count it from
	// its release, with the wider guard.
	l.mu.Lock()
	l.second.complete(t, l.now().Sub(l.origin)+time.Second+releaseGuard)
	l.mu.Unlock()
	return err
}

// Acquire waits as Wait does and returns answered, after which the
// request counts in the rolling second for one second more (and the
// guard), as a Client's own requests do (see SlotLimiter).
func (l *windowLimiter) Acquire(ctx context.Context) (answered func(), err error) {
	t, err := l.acquire(ctx, clientMaxWait(ctx), nil)
	if err != nil {
		return nil, err
	}
	return func() { l.done(t) }, nil
}

// Feedback holds every request sharing the limiter back for f.Hold, or
// lifts the hold (see RateFeedback).
func (l *windowLimiter) Feedback(_ context.Context, f RateFeedback) { l.hold.apply(f, l.now()) }

func (l *windowLimiter) feedback(ctx context.Context, f RateFeedback) { l.Feedback(ctx, f) }

// done tells the limiter the request t names got its response: the
// server counted it by now, so it counts for one second more (and the
// guard), if that is sooner than its release allowed for.
func (l *windowLimiter) done(t slotTicket) {
	if !t.valid {
		return
	}
	l.mu.Lock()
	l.second.complete(t, l.now().Sub(l.origin)+time.Second+secondGuard)
	l.mu.Unlock()
}

func (l *windowLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	return l.acquireKeeping(ctx, maxWait, rec, windowReserve{})
}

// acquireKeeping is acquire for a client that leaves keep free in the
// windows for the other clients sharing the limiter (WithReserve).
func (l *windowLimiter) acquireKeeping(ctx context.Context, maxWait time.Duration, rec *waitRecords, keep windowReserve) (slotTicket, error) {
	limit := effectiveMaxWait(maxWait, l.maxWait, "NewLimiter")
	if err := l.hold.wait(ctx, limit, rec, l.now); err != nil {
		return slotTicket{}, err
	}
	return l.waitWindows(ctx, limit, rec, keep)
}

// waitWindows reserves the earliest release both windows allow, then
// sleeps until it; the request counts in the second until a second after
// done (see secondWindow). A wait cut short by ctx gives the slot back. A
// request that its reserve holds back longer waits in waitKeeping.
func (l *windowLimiter) waitWindows(ctx context.Context, limit maxWaitLimit, rec *waitRecords, keep windowReserve) (slotTicket, error) {
	l.mu.Lock()
	// The clock is read under the lock, so that releases come in order
	// and a request that found the limit free does not wait behind one
	// that read the clock a moment later.
	start := l.now()
	at := start.Sub(l.origin)
	secFree, hourFree := l.second.earliest(), l.hour.free()
	release := max(at, secFree, hourFree, l.last)
	if keep != (windowReserve{}) {
		if kept, _ := l.keeping(keep, at); kept > release {
			l.mu.Unlock()
			return l.waitKeeping(ctx, limit, rec, keep, start)
		}
	}
	delay := release - at
	level := laterLevel(secFree, hourFree)
	if err := limit.check(ctx, delay, start, levelReason(level)); err != nil {
		l.mu.Unlock()
		return slotTicket{}, err
	}
	r := l.reserve(release)
	l.mu.Unlock()
	if delay <= 0 {
		return r.second, nil
	}
	err := l.sleep(ctx, delay)
	rec.add(level, start, l.now().Sub(start), err)
	if err != nil {
		l.giveBack(r)
		return slotTicket{}, err
	}
	return r.second, nil
}

// windowReserve is how many slots of each window a client leaves free for
// the other clients sharing its limiter (WithReserve).
type windowReserve struct{ perHour, perSecond int }

// keeping returns the earliest release at which, after this request takes
// its slot, both windows still hold keep free, and the window that asks
// for the later one. Callers hold l.mu.
func (l *windowLimiter) keeping(keep windowReserve, at time.Duration) (time.Duration, WaitLevel) {
	sec, hour := l.second.earliestKeeping(keep.perSecond), l.hour.freeKeeping(keep.perHour)
	return max(at, sec, hour, l.last), laterLevel(sec, hour)
}

// laterLevel names the window that frees later, the one a wait is for.
func laterLevel(second, hour time.Duration) WaitLevel {
	if hour > second {
		return WaitPerHour
	}
	return WaitPerSecond
}

// waitKeeping waits while the reserve holds a request back, without a
// place in line: a request without a reserve that comes meanwhile goes
// first, as if this one had not asked. Once the reserve allows the
// earliest release, it takes it as waitWindows does. The whole wait from
// start is checked against the max wait and recorded once; a hold the
// server asked for meanwhile is kept after each round.
func (l *windowLimiter) waitKeeping(ctx context.Context, limit maxWaitLimit, rec *waitRecords, keep windowReserve, start time.Time) (slotTicket, error) {
	for {
		l.mu.Lock()
		now := l.now()
		at := now.Sub(l.origin)
		release := max(at, l.second.earliest(), l.hour.free(), l.last)
		kept, level := l.keeping(keep, at)
		waited := now.Sub(start)
		if err := limit.check(ctx, waited+(kept-at), start, levelReason(level)+" keeping the reserve (WithReserve)"); err != nil {
			l.mu.Unlock()
			if waited > 0 {
				rec.add(level, start, waited, ctx.Err())
			}
			return slotTicket{}, err
		}
		var r reservation
		held := kept > release
		if !held {
			r = l.reserve(kept)
		}
		l.mu.Unlock()
		err := l.sleep(ctx, kept-at)
		if held && err == nil {
			// A hold the server asked for meanwhile comes first.
			if err := l.hold.wait(ctx, limit, rec, l.now); err != nil {
				rec.add(level, start, kept-at+waited, nil)
				return slotTicket{}, err
			}
			continue
		}
		if d := l.now().Sub(start); d > 0 || err != nil {
			rec.add(level, start, d, err)
		}
		if err != nil {
			if !held {
				l.giveBack(r)
			}
			return slotTicket{}, err
		}
		return r.second, nil
	}
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

// secondWindow is the rolling second as up to perSecond slots, each
// holding when it frees: a second (and secondGuard) after its request's
// answer, when the server last counted it, or after release + maxTransit
// when the answer is slower. A request takes the slot that frees first and
// goes no earlier; a min-heap by when they free keeps that O(log n).
type secondWindow struct {
	size  int
	slots []secondSlot // grown to size as needed; a ticket's idx is stable
	heap  []int        // slot indexes, the slot that frees first on top
	gen   uint64
	scan  scanHeap // nth's own heap, kept to reuse
}

// secondSlot is one slot of the second.
type secondSlot struct {
	frees time.Duration // since the limiter's origin
	gen   uint64        // the ticket that holds it
	pos   int           // its place in the heap
}

// slotTicket names the slot a request holds, and which holding; for a
// SlotLimiter from outside the core, what to call when it was answered.
type slotTicket struct {
	idx      int
	gen      uint64
	valid    bool
	answered func()
}

// answer calls the SlotLimiter's answered, if the ticket holds one.
func (t slotTicket) answer() {
	if t.answered != nil {
		t.answered()
	}
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

// earliestKeeping returns when a slot can be taken leaving keep free
// after it: once keep+1 slots are free, counting those not made yet.
// earliestKeeping(0) is earliest.
func (w *secondWindow) earliestKeeping(keep int) time.Duration {
	m := keep + 1 - (w.size - len(w.slots)) // made slots that must free
	switch {
	case m <= 0:
		return math.MinInt64
	case m > len(w.slots): // keep >= size, which WithReserve refuses
		return math.MaxInt64
	}
	return w.nth(m)
}

// nth returns when the m-th slot to free frees (m >= 1): it walks the heap
// from its top with a heap of its own, in O(m log m).
func (w *secondWindow) nth(m int) time.Duration {
	h := append(w.scan[:0], scanned{w.slots[w.heap[0]].frees, 0})
	defer func() { w.scan = h[:0] }()
	for {
		top := h[0]
		if m--; m == 0 {
			return top.frees
		}
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		h.down(0)
		for _, child := range [2]int{2*top.pos + 1, 2*top.pos + 2} {
			if child < len(w.heap) {
				h = append(h, scanned{w.slots[w.heap[child]].frees, child})
				h.up(len(h) - 1)
			}
		}
	}
}

// scanned is a slot nth has seen: when it frees and its place in the heap.
type scanned struct {
	frees time.Duration
	pos   int
}

// scanHeap is nth's own min-heap by frees.
type scanHeap []scanned

func (h scanHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if h[parent].frees <= h[i].frees {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h scanHeap) down(i int) {
	for {
		least, left, right := i, 2*i+1, 2*i+2
		if left < len(h) && h[left].frees < h[least].frees {
			least = left
		}
		if right < len(h) && h[right].frees < h[least].frees {
			least = right
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
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

// freeKeeping returns the earliest release the window allows leaving keep
// of its size free after it: once the (size-keep)-th newest release has
// left it. freeKeeping(0) is free.
func (w *window) freeKeeping(keep int) time.Duration {
	k, n := w.size-keep, len(w.ring)
	switch {
	case k <= 0: // keep >= size, which WithReserve refuses
		return math.MaxInt64
	case n < k:
		return math.MinInt64
	}
	// Releases come in order: the ring holds them oldest first from next.
	return w.ring[(w.next+n-k)%n] + w.span
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
