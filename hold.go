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
	now     func() time.Time
	fleet   FeedbackLimiter // told what the hold keeps, when it keeps the hold itself
}

// feedback moves the hold later for f.Hold (never earlier, at most maxHold
// ahead), or clears it for f.Lift from the answer to a request sent at
// sent, and passes on to the fleet what it did not ignore.
func (h *serverHold) feedback(ctx context.Context, sent time.Time, f RateFeedback) {
	h.mu.Lock()
	stale := f.Lift && h.askedAt.After(sent)
	switch now := h.now(); {
	case f.Hold > 0:
		h.askedAt = now
		if until := now.Add(min(f.Hold, maxHold)); until.After(h.until) {
			h.until = until
		}
	case f.Lift && !stale:
		h.until = time.Time{}
	}
	h.mu.Unlock()
	if h.fleet != nil && !stale {
		h.fleet.Feedback(ctx, f)
	}
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

// waitOut sleeps until the hold ends, unless that is longer than limit,
// and records the wait.
func (h *serverHold) waitOut(ctx context.Context, limit maxWaitLimit, rec *waitRecords, sleep func(context.Context, time.Duration) error) error {
	h.mu.Lock()
	until := h.until
	h.mu.Unlock()
	if until.IsZero() {
		return nil
	}
	start := h.now()
	d := until.Sub(start)
	if d <= 0 {
		return nil
	}
	if err := limit.check(ctx, d, start, levelReasons[WaitServer]); err != nil {
		return err
	}
	err := sleep(ctx, d)
	rec.add(WaitServer, start, h.now().Sub(start), ctx, err != nil)
	return err
}
