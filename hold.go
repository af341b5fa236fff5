package seoapi

import (
	"context"
	"sync"
	"time"
)

// maxHold is the longest a hold lasts: a reset further ahead is a bad
// header, not a reason to stop a client for years.
const maxHold = hourSpan

// serverHold is the server's hold: send nothing before until. An answer
// lifts it only when its request was sent after the last answer that
// asked for a hold: an older answer says nothing of that hold.
type serverHold struct {
	mu      sync.Mutex
	until   time.Time // zero: no hold
	askedAt time.Time
}

// apply moves the hold later for f.Hold (never earlier, at most maxHold
// ahead), or clears it for f.Lift from the answer to a request sent at
// sent. It reports false for a Lift it ignored.
func (h *serverHold) apply(f RateFeedback, sent, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case f.Hold > 0:
		h.askedAt = now
		if until := now.Add(min(f.Hold, maxHold)); until.After(h.until) {
			h.until = until
		}
	case f.Lift && h.askedAt.After(sent):
		return false
	case f.Lift:
		h.until = time.Time{}
	}
	return true
}

// end returns when the hold ends; zero when none is ahead of now.
func (h *serverHold) end(now time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until.After(now) {
		return h.until
	}
	return time.Time{}
}

// wait sleeps until the hold ends, unless that is longer than limit, and
// records the wait.
func (h *serverHold) wait(ctx context.Context, limit maxWaitLimit, rec *waitRecords, now func() time.Time, sleep func(context.Context, time.Duration) error) error {
	h.mu.Lock()
	until := h.until
	h.mu.Unlock()
	if until.IsZero() {
		return nil
	}
	start := now()
	d := until.Sub(start)
	if d <= 0 {
		return nil
	}
	if err := limit.check(ctx, d, start, levelReason(WaitServer)); err != nil {
		return err
	}
	err := sleep(ctx, d)
	rec.add(WaitServer, start, now().Sub(start), err)
	return err
}
