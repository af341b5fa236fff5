package seoapi

import (
	"context"
	"sync"
	"time"
)

// serverHold is the server's hold: nothing is sent before until. Only an
// answer to a request sent after the last hold was asked for lifts it.
type serverHold struct {
	mu      sync.Mutex
	until   time.Time // zero: no hold
	askedAt time.Time
	now     func() time.Time
	sleep   func(context.Context, time.Duration) error // tests replace it
	fleet   FeedbackLimiter                            // keeps the hold itself (until stays zero), told what was not stale
}

// feedback moves the hold later for f.Hold (never earlier, at most maxHold
// ahead) or lifts it for f.Lift, from the answer to a request sent at sent.
func (h *serverHold) feedback(ctx context.Context, sent time.Time, f RateFeedback) {
	h.mu.Lock()
	stale := f.Lift && h.askedAt.After(sent)
	switch now := h.now(); {
	case f.Hold > 0:
		h.askedAt = now
		if until := now.Add(min(f.Hold, maxHold)); until.After(h.until) && h.fleet == nil {
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
