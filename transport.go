package seoapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// limitedTransport is the RoundTripper under the retry loop: every attempt
// first obeys the server's last word on the rate limit, then waits for the
// limiter.
type limitedTransport struct {
	next    http.RoundTripper
	limiter Limiter // nil when the client-side limit is off
	maxWait time.Duration
	logger  *slog.Logger
	now     func() time.Time

	mu         sync.Mutex
	blockedTil time.Time // the server said Remaining 0 until then
}

func newLimitedTransport(next http.RoundTripper, cfg rateLimitConfig, maxWait time.Duration, logger *slog.Logger, now func() time.Time) *limitedTransport {
	t := &limitedTransport{next: next, maxWait: maxWait, logger: logger, now: now}
	switch {
	case cfg.off:
	case cfg.limiter != nil:
		t.limiter = cfg.limiter
	default:
		t.limiter = newWindowLimiter(cfg.perHour, cfg.perSecond, maxWait, now)
	}
	return t
}

// RoundTrip waits its turn, sends req and records what the response says
// about the rate limit.
func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := t.now()
	if err := t.waitTurn(req.Context(), start); err != nil {
		if e, ok := err.(*APIError); ok && e.Method == "" {
			e.Method, e.URL = req.Method, redactedURL(req)
		}
		return nil, err
	}
	if waited := t.now().Sub(start); waited > time.Second && t.logger != nil {
		t.logger.LogAttrs(req.Context(), slog.LevelWarn, "seoapi: throttled by rate limit",
			slog.String("method", req.Method), slog.String("path", req.URL.Path), slog.Duration("waited", waited))
	}
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		t.observe(resp.Header, t.now())
	}
	return resp, err
}

func (t *limitedTransport) waitTurn(ctx context.Context, now time.Time) error {
	t.mu.Lock()
	blocked := t.blockedTil.Sub(now)
	t.mu.Unlock()
	if blocked > 0 {
		if err := checkWait(ctx, blocked, t.maxWait, now, "server rate limit (Remaining 0)"); err != nil {
			return err
		}
		if err := sleep(ctx, blocked); err != nil {
			return err
		}
	}
	if t.limiter == nil {
		return ctx.Err()
	}
	return t.limiter.Wait(ctx)
}

// observe holds later requests back until the reset when the server says
// no requests remain.
func (t *limitedTransport) observe(h http.Header, now time.Time) {
	r := parseRate(h, now)
	if !r.exhausted(now) {
		return
	}
	t.mu.Lock()
	if r.Reset.After(t.blockedTil) {
		t.blockedTil = r.Reset
	}
	t.mu.Unlock()
}

