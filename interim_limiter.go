package seoapi

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Interim glue until the limiter rework lands in ratelimit.go; it keeps
// today's behaviour (a hold in the transport, the Limiter behind it).

type waitEntry struct {
	level WaitLevel
	start time.Time
	d     time.Duration
}

type waitLog struct {
	n int
	w [3]waitEntry
}

func (l *waitLog) add(level WaitLevel, start time.Time, d time.Duration) {
	if l.n < len(l.w) {
		l.w[l.n] = waitEntry{level, start, d}
		l.n++
	}
}

type turnTaker interface {
	waitTurn(ctx context.Context, maxWait time.Duration, rec *waitLog) error
	feedback(ctx context.Context, f RateFeedback)
}

type interimLimiter struct {
	inner Limiter
	level WaitLevel
	mu    sync.Mutex
	hold  time.Time
}

func newInterimLimiter(cfg rateLimitConfig, maxWait time.Duration, now func() time.Time) turnTaker {
	l := &interimLimiter{level: WaitLimiter}
	switch {
	case cfg.off:
	case cfg.limiter != nil:
		l.inner = cfg.limiter
	default:
		l.inner = newWindowLimiter(cfg.perHour, cfg.perSecond, maxWait, now)
		l.level = WaitPerSecond
	}
	return l
}

func (l *interimLimiter) waitTurn(ctx context.Context, maxWait time.Duration, rec *waitLog) error {
	now := time.Now()
	l.mu.Lock()
	blocked := l.hold.Sub(now)
	l.mu.Unlock()
	if blocked > 0 {
		if err := checkWait(ctx, blocked, maxWait, now, "server rate limit (Remaining 0)"); err != nil {
			return err
		}
		if err := sleep(ctx, blocked); err != nil {
			return err
		}
		rec.add(WaitServer, now, blocked)
	}
	if l.inner == nil {
		return ctx.Err()
	}
	start := time.Now()
	err := l.inner.Wait(ctx)
	if d := time.Since(start); d > time.Millisecond {
		rec.add(l.level, start, d)
	}
	return err
}

func (l *interimLimiter) feedback(_ context.Context, f RateFeedback) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f.Lift {
		l.hold = time.Time{}
		return
	}
	if until := time.Now().Add(f.Hold); until.After(l.hold) {
		l.hold = until
	}
}

func interimFeedback(status int, h http.Header, now time.Time) (RateFeedback, bool) {
	r := parseRate(h, now)
	if r.exhausted(now) {
		return RateFeedback{Hold: min(r.Reset.Sub(now), time.Hour+hourGuard)}, true
	}
	return RateFeedback{}, false
}
