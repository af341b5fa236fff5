package redislimit

import (
	"context"
	"sync"
	"time"

	"github.com/seoapi/seoapi-go"
)

// localHold keeps the server's hold inside this process while Redis is
// down, for a fallback that is not a seoapi.FeedbackLimiter and so cannot
// keep it itself: the core trusts a FeedbackLimiter to obey holds.
type localHold struct {
	mu    sync.Mutex
	until time.Time // send nothing before; zero: no hold
	set   time.Time // when until was last moved
}

// apply moves the hold later for a Hold, or ends it for a Lift unless it
// is younger than grace (see liftGrace).
func (h *localHold) apply(f seoapi.RateFeedback, now time.Time, grace time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case f.Hold > 0:
		if until := now.Add(f.Hold); until.After(h.until) {
			h.until, h.set = until, now
		}
	case f.Lift && now.Sub(h.set) >= grace:
		h.until = time.Time{}
	}
}

// wait sleeps until the hold ends, unless CheckWait refuses that long.
func (h *localHold) wait(ctx context.Context, maxWait time.Duration) error {
	h.mu.Lock()
	d := time.Until(h.until)
	h.mu.Unlock()
	if d <= 0 {
		return nil
	}
	if err := seoapi.CheckWait(ctx, d, maxWait, "server rate limit (held in this process while Redis is down)"); err != nil {
		return err
	}
	return sleep(ctx, d)
}
