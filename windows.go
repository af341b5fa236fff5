package seoapi

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"time"
)

// How long a request holds its slots (docs/limiter.md has the
// measurements behind each figure).
const (
	secondGuard  = 5 * time.Millisecond                   // after an answer or a failure: timer and clock granularity
	releaseGuard = 15 * time.Millisecond                  // after the release of a request let go by Wait, never answered
	maxTransit   = time.Second                            // the latest a request is assumed to reach the server after its release
	hourGuard    = 2 * time.Second                        // a request arrives a little after its release
	hourSpan     = time.Hour + hourGuard                  // a slot of the hour, from the release
	secondSpan   = maxTransit + time.Second + secondGuard // a slot of the second, from the release, until the request ends
)

// windowLimiter is the built-in limiter: two exact rolling windows and the
// server's hold. A request goes when both windows have a free slot; both
// slots are taken in one step under one lock. Requests are let go in the
// order they asked (why not a token bucket: docs/limiter.md).
type windowLimiter struct {
	maxWait time.Duration // NewLimiter's own bound; 0: the client's
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error // tests replace it
	hold    serverHold

	mu     sync.Mutex
	origin time.Time // times in the windows are durations since origin
	second window    // until a second after the server last counted the request
	hour   window    // until an hour after the release
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
// request (see NewLimiter). Its answer is never heard of: the request
// counts from its release, with a wider guard.
func (l *windowLimiter) Wait(ctx context.Context) error {
	_, err := builtinLimiter{windowLimiter: l, unheard: true}.acquire(ctx, clientMaxWait(ctx), nil)
	return err
}

// Acquire waits as Wait does; after answered, the request counts for a
// second more (see SlotLimiter).
func (l *windowLimiter) Acquire(ctx context.Context) (answered func(), err error) {
	t, err := builtinLimiter{windowLimiter: l}.acquire(ctx, clientMaxWait(ctx), nil)
	if err != nil {
		return nil, err
	}
	return func() { l.done(t, true) }, nil
}

// Feedback holds every request sharing the limiter back for f.Hold, or
// lifts the hold (see RateFeedback).
func (l *windowLimiter) Feedback(_ context.Context, f RateFeedback) {
	now := l.now()
	l.hold.apply(f, now, now)
}

func (l *windowLimiter) feedback(_ context.Context, sent time.Time, f RateFeedback) {
	l.hold.apply(f, sent, l.now())
}

// Budget returns the limits, the slots held now (requests waiting for
// their turn included) and the server's hold.
func (l *windowLimiter) Budget(context.Context) (Budget, error) {
	now := l.now()
	l.mu.Lock()
	at := now.Sub(l.origin)
	b := Budget{PerHour: l.hour.size, PerSecond: l.second.size, UsedHour: l.hour.held(at), UsedSecond: l.second.held(at)}
	l.mu.Unlock()
	b.HoldUntil = l.hold.end(now)
	return b, nil
}

// done moves t's slot of the second to free a second (and the guard)
// after now: sooner, when the request was answered (the server counted
// it by now); later, when it failed (it may arrive until release +
// maxTransit, or arrived just before the failure). See docs/limiter.md.
func (l *windowLimiter) done(t slotTicket, answered bool) {
	if t.id == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	taken := slot{frees: t.sent.Sub(l.origin) + secondSpan, id: t.id}
	frees := l.now().Sub(l.origin) + time.Second + secondGuard
	if answered {
		frees = min(frees, taken.frees)
	} else {
		frees = max(frees, taken.frees)
	}
	if l.second.remove(taken) || !answered {
		l.second.add(slot{frees: frees, id: t.id})
	}
}

// acquire waits for the server's hold, then for the windows, leaving
// l.keep free (WithReserve). Held back by the reserve, it sleeps without a
// place in line and looks again. A wait that ends early gives its slots
// back.
func (l builtinLimiter) acquire(ctx context.Context, maxWait time.Duration, rec *waitRecords) (slotTicket, error) {
	limit := maxWaitLimit{client: maxWait, own: l.maxWait, ownName: "NewLimiter"}
	if err := ctx.Err(); err != nil {
		return slotTicket{}, err
	}
	if err := l.hold.wait(ctx, limit, rec, l.now, l.sleep); err != nil {
		return slotTicket{}, err
	}
	second := secondSpan // until done moves it
	if l.unheard {
		second = time.Second + releaseGuard
	}
	start := l.now()
	slept := false
	for {
		t, d, level, err := l.reserve(ctx, limit, l.keep, second, start)
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
			l.giveBack(t, second)
			return slotTicket{}, err
		}
		return t, nil
	}
}

// reserve takes both slots at the earliest release, the slot of the
// second for second, and returns the wait for it; when keep allows only a
// later one, it takes nothing.
func (l *windowLimiter) reserve(ctx context.Context, limit maxWaitLimit, keep windowReserve, second time.Duration, start time.Time) (slotTicket, time.Duration, WaitLevel, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now() // read under the lock: releases come in order
	at := now.Sub(l.origin)
	release, level := l.earliest(at, windowReserve{})
	kept, keptLevel := release, level
	if keep != (windowReserve{}) {
		kept, keptLevel = l.earliest(at, keep)
	}
	if wait := kept - at; wait > 0 {
		reason := levelReason(keptLevel)
		if kept > release {
			reason += " keeping the reserve (WithReserve)"
		}
		// The whole wait counts, from the first look.
		if err := limit.check(ctx, wait+now.Sub(start), start, reason); err != nil {
			return slotTicket{}, 0, keptLevel, err
		}
	}
	if kept > release {
		return slotTicket{}, kept - at, keptLevel, nil
	}
	l.lastID++
	l.hour.add(slot{frees: release + hourSpan, id: l.lastID})
	l.second.add(slot{frees: release + second, id: l.lastID})
	return slotTicket{sent: l.origin.Add(release), id: l.lastID}, release - at, level, nil
}

// earliest returns the earliest release from at, after the last one, that
// leaves keep free, and the window that asks for it. Callers hold l.mu.
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
func (l *windowLimiter) giveBack(t slotTicket, second time.Duration) {
	if t.id == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	release := t.sent.Sub(l.origin)
	l.hour.remove(slot{frees: release + hourSpan, id: t.id})
	l.second.remove(slot{frees: release + second, id: t.id})
}

// windowReserve is what a client leaves free in each window (WithReserve).
type windowReserve struct{ perHour, perSecond int }

// window is one rolling window: the slots held, in the order they free.
type window struct {
	size  int
	slots []slot
}

// slot is one request's place in a window.
type slot struct {
	frees time.Duration // since the limiter's origin
	id    uint64        // the request's
}

func compareSlots(a, b slot) int {
	return cmp.Or(cmp.Compare(a.frees, b.frees), cmp.Compare(a.id, b.id))
}

// free returns when a slot can be taken leaving keep free: the slots
// counted from the end are the same whether freed ones were dropped or not.
func (w *window) free(at time.Duration, keep int) time.Duration {
	n := w.size - keep // slots that may be held once this one is taken
	if w.held(at) < n {
		return math.MinInt64
	}
	return w.slots[len(w.slots)-n].frees
}

// held returns how many slots are held at at. It drops the freed ones
// once they are half the slice, so that each costs O(1) to drop and the
// slice is reused.
func (w *window) held(at time.Duration) int {
	freed, _ := slices.BinarySearchFunc(w.slots, at, func(s slot, at time.Duration) int {
		return cmp.Or(cmp.Compare(s.frees, at), -1) // first slot that frees after at
	})
	if 2*freed >= len(w.slots) {
		w.slots = w.slots[:copy(w.slots, w.slots[freed:])]
		freed = 0
	}
	return len(w.slots) - freed
}

// add holds s; a new release goes last, with no search.
func (w *window) add(s slot) {
	if n := len(w.slots); n == 0 || compareSlots(w.slots[n-1], s) < 0 {
		w.slots = append(w.slots, s)
		return
	}
	i, _ := slices.BinarySearchFunc(w.slots, s, compareSlots)
	w.slots = slices.Insert(w.slots, i, s)
}

// remove reports whether s was still held.
func (w *window) remove(s slot) bool {
	i, found := slices.BinarySearchFunc(w.slots, s, compareSlots)
	if found {
		w.slots = slices.Delete(w.slots, i, i+1)
	}
	return found
}
