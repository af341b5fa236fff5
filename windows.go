package seoapi

import (
	"context"
	"math"
	"slices"
	"time"
)

// How long a request holds its slots, and a hold at most (docs/limiter.md).
const (
	secondGuard  = 5 * time.Millisecond  // after an answer or a failure: timer and clock granularity
	releaseGuard = 15 * time.Millisecond // after the release of a request whose answer is never heard of (Wait)
	maxTransit   = time.Second           // the latest a request may reach the server after its release
	hourGuard    = 2 * time.Second       // a request reaches the server a little after its release
	hourSpan     = time.Hour + hourGuard
	secondSpan   = maxTransit + time.Second + secondGuard // from the release, until done moves it
	maxHold      = hourSpan                               // the longest hold: a later reset is a bad header
)

// windowLimiter is the built-in limiter: two exact rolling windows and the
// server's hold, under its lock. Requests take both slots at once, in order.
type windowLimiter struct {
	serverHold
	maxWait time.Duration // NewLimiter's own bound; 0: the client's
	origin  time.Time     // times in the windows are durations since origin
	second  window
	hour    window
}

func newWindowLimiter(perHour, perSecond int, maxWait time.Duration, now func() time.Time) *windowLimiter {
	return &windowLimiter{serverHold: serverHold{now: now, sleep: sleep}, maxWait: maxWait, origin: now(),
		second: window{size: perSecond}, hour: window{size: perHour}}
}

// Wait blocks until the hold and both windows let one more request go.
func (l *windowLimiter) Wait(ctx context.Context) error {
	_, err := builtinLimiter{windowLimiter: l, unheard: true}.acquire(ctx, clientMaxWait(ctx), nil)
	return err
}

// Acquire waits as Wait does; the request counts until a second after
// answered (see SlotLimiter).
func (l *windowLimiter) Acquire(ctx context.Context) (answered func(), err error) {
	t, err := builtinLimiter{windowLimiter: l}.acquire(ctx, clientMaxWait(ctx), nil)
	if err != nil {
		return nil, err
	}
	return func() { l.done(t, true) }, nil
}

// Feedback holds back every request sharing the limiter (see RateFeedback).
func (l *windowLimiter) Feedback(ctx context.Context, f RateFeedback) { l.feedback(ctx, l.now(), f) }

// Budget returns the limits, the slots held (by waiting requests too) and
// the server's hold.
func (l *windowLimiter) Budget(context.Context) (Budget, error) {
	l.mu.Lock()
	at := l.now().Sub(l.origin)
	b := Budget{PerHour: l.hour.size, PerSecond: l.second.size, UsedHour: l.hour.held(at), UsedSecond: l.second.held(at)}
	l.mu.Unlock()
	b.HoldUntil = l.end()
	return b, nil
}

// acquire waits out the server's hold, then takes both slots and waits for
// its turn; held back by the reserve or a hold set meanwhile, it looks again.
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

// take returns the wait for the earliest release leaving l.keep free and
// takes both slots for it; none under the hold (WaitServer) or the reserve.
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
	hour, sec := l.hour.free(l.keep.perHour), l.second.free(l.keep.perSecond)
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
	if l.unheard {
		t.second = release + time.Second + releaseGuard // no done will move it
	}
	l.hour.add(t.hour, at)
	l.second.add(t.second, at)
	return t, wait, level, nil
}

// done moves t's slot of the second to a second and the guard after now:
// sooner when answered, later when it failed (docs/limiter.md).
func (l *windowLimiter) done(t slotTicket, answered bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at := l.now().Sub(l.origin)
	frees := at + time.Second + secondGuard
	switch held := l.second.remove(t.second); {
	case !answered: // taken again if it freed meanwhile
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

// windowReserve is what a client leaves free in each window (WithReserve).
type windowReserve struct{ perHour, perSecond int }

// window is one rolling window: when each slot frees, in ascending order.
type window struct {
	size int
	ends []time.Duration
}

// free returns when one more slot may be taken leaving keep free: when the
// (size-keep)-th slot from the end frees, or math.MinInt64 if none is.
func (w *window) free(keep int) time.Duration {
	if n := w.size - keep; len(w.ends) >= n {
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
