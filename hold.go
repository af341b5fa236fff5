package seoapi

import (
	"context"
	"sync/atomic"
	"time"
)

// maxHold is the longest a hold lasts: the longest published window and
// its guard. A reset further ahead is a bad header, not a reason to stop a
// client for years.
const maxHold = time.Hour + hourGuard

// serverHold keeps the server's hold: send nothing before a time. It is
// read on every attempt, so it is one atomic value, not a lock.
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
