package seoapi

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a manual clock for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestWindowLimiterHourIsExactAndRolling(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newWindowLimiter(3, 1000, time.Minute, clk.now)
	ctx := context.Background()
	for i := range 3 {
		require.NoError(t, l.Wait(ctx), i)
		clk.advance(10 * time.Minute)
	}
	// 30 minutes in, the hour holds 3: the 4th must wait for the first to
	// leave the window at 1h (+ guard), which is beyond maxWait.
	err := l.Wait(ctx)
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 30*time.Minute+hourGuard, apiErr.RetryAfter)

	clk.advance(30*time.Minute + hourGuard)
	require.NoError(t, l.Wait(ctx), "the first request left the window")
	err = l.Wait(ctx)
	require.ErrorIs(t, err, ErrRateLimited, "only one slot freed")
	clk.advance(10 * time.Minute)
	require.NoError(t, l.Wait(ctx), "the second left too")
}

func TestWindowLimiterNeverMoreThanLimitInAnyHour(t *testing.T) {
	t.Parallel()
	// A token bucket of burst 10 000 would let ~20 000 through in the first
	// hour; the window lets exactly perHour through in any rolling hour.
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	const perHour = 50
	l := newWindowLimiter(perHour, 1_000_000, 0, clk.now)
	var sent []time.Time
	for len(sent) < 3*perHour {
		err := l.Wait(context.Background())
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			// Refused as longer than maxWait: jump the clock instead of sleeping.
			clk.advance(apiErr.RetryAfter)
			continue
		}
		require.NoError(t, err)
		sent = append(sent, clk.now())
		clk.advance(time.Second)
	}
	for i := range sent {
		in := 0
		for j := i; j < len(sent) && sent[j].Sub(sent[i]) < time.Hour; j++ {
			in++
		}
		assert.LessOrEqual(t, in, perHour, "window starting at request %d", i)
	}
}

func TestWindowLimiterPerSecondPacing(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newWindowLimiter(1_000_000, 50, time.Millisecond, clk.now)
	// Burst 1: the second request at the same instant needs a token that
	// arrives after 1/(50*margin) s, longer than maxWait.
	require.NoError(t, l.Wait(context.Background()))
	err := l.Wait(context.Background())
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr))
	assert.InDelta(t, float64(time.Second)/(50*perSecondMargin), float64(apiErr.RetryAfter), float64(time.Millisecond))
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	tests := []struct {
		name   string
		header http.Header
		want   Rate
	}{
		{"none", http.Header{}, Rate{}},
		{"X- prefix, reset in seconds", http.Header{"X-Ratelimit-Limit": {"10000"}, "X-Ratelimit-Remaining": {"42"}, "X-Ratelimit-Reset": {"30"}},
			Rate{Limit: 10000, Remaining: 42, Reset: now.Add(30 * time.Second)}},
		{"no prefix, reset as Unix time", http.Header{"Ratelimit-Limit": {"50"}, "Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"1700000060"}},
			Rate{Limit: 50, Remaining: 0, Reset: time.Unix(1_700_000_060, 0)}},
		{"structured field value", http.Header{"Ratelimit-Limit": {"100;w=3600"}, "Ratelimit-Remaining": {"7"}},
			Rate{Limit: 100, Remaining: 7}},
		{"garbage", http.Header{"X-Ratelimit-Remaining": {"lots"}, "X-Ratelimit-Reset": {"soon"}}, Rate{}},
		{"negative reset ignored", http.Header{"X-Ratelimit-Remaining": {"1"}, "X-Ratelimit-Reset": {"-5"}}, Rate{Remaining: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := parseRate(tt.header, now)
			assert.Equal(t, tt.want.Limit, got.Limit)
			assert.Equal(t, tt.want.Remaining, got.Remaining)
			assert.True(t, tt.want.Reset.Equal(got.Reset), "reset %v, want %v", got.Reset, tt.want.Reset)
		})
	}
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := retryAfter(http.Header{"Retry-After": {tt.value}}, now)
		assert.Equal(t, tt.ok, ok, tt.value)
		assert.Equal(t, tt.want, got, tt.value)
	}
}

func TestBackoffGrowsWithinBounds(t *testing.T) {
	t.Parallel()
	p := retryPolicy{waitMin: 500 * time.Millisecond, waitMax: 8 * time.Second}
	for attempt := 1; attempt <= 40; attempt++ {
		ceiling := min(p.waitMin<<min(attempt-1, 20), p.waitMax)
		for range 50 {
			d := p.backoff(attempt)
			assert.GreaterOrEqual(t, d, max(ceiling/2, p.waitMin), "attempt %d", attempt)
			assert.LessOrEqual(t, d, ceiling, "attempt %d", attempt)
		}
	}
}

func TestWindowLimiterRefusesWaitPastDeadline(t *testing.T) {
	t.Parallel()
	l := newWindowLimiter(1_000_000, 1, time.Hour, time.Now)
	require.NoError(t, l.Wait(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := l.Wait(ctx)
	require.ErrorIs(t, err, ErrRateLimited, "a ~1 s wait cannot end before a 100 ms deadline")
	require.NoError(t, ctx.Err(), "refused at once, not at the deadline")
	// The refused reservation was given back: after a second the next
	// request passes at once.
	time.Sleep(1100 * time.Millisecond)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	require.NoError(t, l.Wait(ctx2))
}
