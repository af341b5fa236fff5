package redislimit

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// health remembers whether Redis answered the last time it was asked.
type health struct {
	probeEvery time.Duration

	mu      sync.Mutex
	down    bool
	retryAt time.Time // while down: when to ask Redis again
	err     error     // while down: the failure that began or last extended the outage
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

// fail records a failure and reports whether it began an outage.
func (h *health) fail(err error, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	began := !h.down
	h.down, h.retryAt, h.err = true, now.Add(h.probeEvery), err
	return began
}

// recover records an answer and reports whether it ended an outage.
func (h *health) recover() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	ended := h.down
	h.down, h.err = false, nil
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
	if l.health.recover() && l.fallback != nil {
		l.logger.LogAttrs(context.Background(), slog.LevelInfo,
			"redislimit: Redis answers again; using the shared budget",
			slog.String("budget", l.name))
	}
}

// withoutRedis is Wait while Redis cannot be reached: the fallback's
// wait, or an *UnavailableError.
func (l *Limiter) withoutRedis(ctx context.Context, err error) error {
	if l.fallback != nil {
		if err := l.local.wait(ctx, l.maxWait); err != nil {
			return err
		}
		return l.fallback.Wait(ctx)
	}
	return &UnavailableError{Name: l.name, Err: err}
}
