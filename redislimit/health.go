package redislimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// health remembers whether Redis answered the last time it was asked.
type health struct {
	probeEvery time.Duration // how long Redis is left alone after a failure
	rejoin     time.Duration // outages closer together than this count as one

	mu        sync.Mutex
	down      bool
	retryAt   time.Time // while down: when to ask Redis again
	err       error     // while down: the failure that began or last extended the outage
	endedAt   time.Time // when the last outage ended
	announced bool      // the current outage's beginning was announced
}

// skipping returns the failure that began or last extended an outage
// while Redis is to be left alone (probeEvery after it last failed), and
// nil when Redis should be asked.
func (h *health) skipping(now time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down && now.Before(h.retryAt) {
		return h.err
	}
	return nil
}

// fail records a failure and reports whether it began an outage worth
// announcing: Redis answered before, and not just after another outage
// (a Redis coming back often fails a few more times, and a client's
// connection pool may keep reporting its last dial error for a while).
func (h *health) fail(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	began := !h.down && (h.endedAt.IsZero() || now.Sub(h.endedAt) >= h.rejoin)
	h.down, h.retryAt, h.err = true, now.Add(h.probeEvery), err
	h.announced = h.announced || began
	return began
}

// recover records an answer and reports whether it ended an announced
// outage.
func (h *health) recover(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.down {
		return false
	}
	ended := h.announced
	h.down, h.err, h.endedAt, h.announced = false, nil, now, false
	return ended
}

// wentDown records that Redis could not be reached, and says so once per
// outage when a fallback takes over.
func (l *Limiter) wentDown(err error) {
	if l.health.fail(err, time.Now()) && l.fallback != nil {
		l.logger.LogAttrs(context.Background(), slog.LevelWarn,
			"redislimit: Redis cannot be reached; using the fallback limiter until it answers",
			slog.String("budget", l.name), slog.String("error", err.Error()))
	}
}

// cameBack records that Redis answered, and says so when an outage ends.
func (l *Limiter) cameBack() {
	if l.health.recover(time.Now()) && l.fallback != nil {
		l.logger.LogAttrs(context.Background(), slog.LevelInfo,
			"redislimit: Redis answers again; using the shared budget",
			slog.String("budget", l.name))
	}
}

// withoutRedis is Acquire while Redis cannot be reached: the fallback's,
// within the same max wait, or an *UnavailableError.
func (l *Limiter) withoutRedis(ctx context.Context, err error, maxWait time.Duration) (func(answered bool), error) {
	if l.fallback == nil {
		return nil, &UnavailableError{Name: l.name, Err: err}
	}
	if maxWait < 0 && l.maxWait > 0 {
		maxWait = l.maxWait // the client set none: this limiter's own bound
	}
	return l.fallback.Acquire(ctx, maxWait)
}
