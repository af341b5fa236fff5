package seoapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
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
	l := newWindowLimiter(perHour, 1_000_000, time.Nanosecond, clk.now)
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

func TestWindowLimiterSecondIsExactAndRolling(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newWindowLimiter(1_000_000, 50, time.Nanosecond, clk.now)
	ctx := context.Background()
	// An idle limiter lets a whole second's worth through at once.
	for i := range 50 {
		var rec waitRecords
		require.NoError(t, turn(l, ctx, time.Minute, &rec), i)
		assert.Zero(t, rec.n, "request %d waited", i)
	}
	// The 51st waits until the first leaves the second and its guard.
	err := l.Wait(ctx)
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, time.Second+secondGuard, apiErr.RetryAfter)
	assert.Contains(t, apiErr.Message, "per-second limit")

	clk.advance(time.Second + secondGuard)
	require.NoError(t, l.Wait(ctx), "the burst left the window")
	clk.advance(400 * time.Millisecond)
	for i := range 49 {
		require.NoError(t, l.Wait(ctx), "slot %d of the rolling second", i)
	}
	err = l.Wait(ctx)
	require.ErrorIs(t, err, ErrRateLimited, "50 released within the last second")
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, time.Second+releaseGuard-400*time.Millisecond, apiErr.RetryAfter, "until the oldest of them leaves")
}

// TestWindowLimiterNeverMoreThanLimitInAnyWindow drives both levels with
// an irregular clock and checks every rolling window of the releases.
func TestWindowLimiterNeverMoreThanLimitInAnyWindow(t *testing.T) {
	t.Parallel()
	const perSecond, perHour = 7, 100
	clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newWindowLimiter(perHour, perSecond, time.Nanosecond, clk.now)
	steps := []time.Duration{0, time.Millisecond, 0, 90 * time.Millisecond, 3 * time.Millisecond, 0, 500 * time.Millisecond, 17 * time.Second}
	var sent []time.Time
	for i := 0; len(sent) < 3*perHour; i++ {
		err := l.Wait(context.Background())
		var apiErr *APIError
		if errors.As(err, &apiErr) {
			clk.advance(apiErr.RetryAfter)
			continue
		}
		require.NoError(t, err)
		sent = append(sent, clk.now())
		clk.advance(steps[i%len(steps)])
	}
	assert.LessOrEqual(t, maxInWindow(sent, time.Second+secondGuard), perSecond)
	assert.LessOrEqual(t, maxInWindow(sent, time.Hour+hourGuard), perHour)
	assert.Equal(t, perSecond, maxInWindow(sent, time.Second), "bursts use the whole second")
}

// maxInWindow returns the most releases in any span shorter than w.
func maxInWindow(sent []time.Time, w time.Duration) int {
	most := 0
	for i := range sent {
		in := 0
		for j := i; j < len(sent) && sent[j].Sub(sent[i]) < w; j++ {
			in++
		}
		most = max(most, in)
	}
	return most
}

func TestWindowLimiterGivesBackACancelledWait(t *testing.T) {
	t.Parallel()
	l := newWindowLimiter(1_000_000, 1, time.Hour, time.Now)
	require.NoError(t, l.Wait(context.Background()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- l.Wait(ctx) }()
	// Wait until the goroutine holds its reservation, then cancel it.
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.seq == 2
	}, 5*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.EqualValues(t, 1, l.seq, "the cancelled slot was given back")
	assert.Len(t, l.hour.ring, 1)
	assert.Equal(t, 1, l.second.held(l.now().Sub(l.origin)), "one slot of the second is held")
}

func TestWindowLimiterRefusesWaitPastDeadline(t *testing.T) {
	t.Parallel()
	l := newWindowLimiter(1_000_000, 1, time.Hour, time.Now)
	require.NoError(t, l.Wait(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := l.Wait(ctx)
	require.ErrorIs(t, err, ErrRateLimited, "a ~1 s wait cannot end before a 100 ms deadline")
	assert.Contains(t, err.Error(), "would end after the context's deadline")
	require.NoError(t, ctx.Err(), "refused at once, not at the deadline")
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.EqualValues(t, 1, l.seq, "a refused wait reserves nothing")
}

func TestWaitTurnRecordsEachWait(t *testing.T) {
	t.Parallel()
	// One request per second: the second request waits for the hold the
	// server asked for, then for the rolling second.
	l := newWindowLimiter(1_000_000, 1, 0, time.Now)
	var rec waitRecords
	require.NoError(t, turn(l, context.Background(), time.Minute, &rec))
	require.Zero(t, rec.n)
	l.feedback(context.Background(), RateFeedback{Hold: 20 * time.Millisecond})
	before := time.Now()
	require.NoError(t, turn(l, context.Background(), time.Minute, &rec))
	require.Equal(t, 2, rec.n)
	server, second := rec.all()[0], rec.all()[1]
	assert.Equal(t, WaitServer, server.level)
	assert.GreaterOrEqual(t, server.d, 19*time.Millisecond)
	assert.False(t, server.start.Before(before))
	assert.Equal(t, WaitPerSecond, second.level)
	assert.False(t, second.start.Before(server.start.Add(server.d)), "the second wait follows the hold")
	assert.Greater(t, server.d+second.d, time.Second, "a second and its guard after the first request")
}

func TestServerHold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		feedback []RateFeedback
		want     time.Duration
	}{
		{"none", nil, 0},
		{"hold", []RateFeedback{{Hold: time.Minute}}, time.Minute},
		{"a shorter hold does not shorten it", []RateFeedback{{Hold: time.Minute}, {Hold: time.Second}}, time.Minute},
		{"a longer hold lengthens it", []RateFeedback{{Hold: time.Second}, {Hold: time.Minute}}, time.Minute},
		{"clamped to the longest window", []RateFeedback{{Hold: 30 * 365 * 24 * time.Hour}}, maxHold},
		{"lifted", []RateFeedback{{Hold: maxHold}, {Lift: true}}, 0},
		{"held again after a lift", []RateFeedback{{Hold: maxHold}, {Lift: true}, {Hold: time.Second}}, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			for _, lim := range []attemptLimiter{newWindowLimiter(100, 10, 0, clk.now), newHoldingLimiter(nil, clk.now), newHoldingLimiter(&countingLimiter{}, clk.now)} {
				clk.advance(time.Minute)
				for _, f := range tt.feedback {
					lim.feedback(context.Background(), f)
				}
				var rec waitRecords
				err := turn(lim, context.Background(), 0, &rec)
				if tt.want == 0 {
					require.NoError(t, err, "%T", lim)
					continue
				}
				require.ErrorIs(t, err, ErrRateLimited, "%T", lim)
				var apiErr *APIError
				require.True(t, errors.As(err, &apiErr))
				assert.Equal(t, tt.want, apiErr.RetryAfter, "%T", lim)
				assert.Equal(t, "server rate limit: wait of "+tt.want.String()+" exceeds the max wait of 0s (WithMaxWait)", apiErr.Message)
			}
		})
	}
}

func TestRateFeedback(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	thirtyYears := fmt.Sprint(now.Add(30 * 365 * 24 * time.Hour).Unix())
	tests := []struct {
		name   string
		status int
		header []string
		want   RateFeedback
		ok     bool
	}{
		{"nothing said", 200, nil, RateFeedback{}, false},
		{"requests remain", 200, []string{"X-RateLimit-Remaining", "12"}, RateFeedback{Lift: true}, true},
		{"none remain until a reset ahead", 200, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30"}, RateFeedback{Hold: 30 * time.Second}, true},
		{"a reset 30 years ahead is clamped", 200, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", thirtyYears}, RateFeedback{Hold: maxHold}, true},
		{"none remain, no reset", 200, []string{"RateLimit-Remaining", "0"}, RateFeedback{}, false},
		{"none remain, reset passed", 200, []string{"RateLimit-Remaining", "0", "RateLimit-Reset", "1699999990"}, RateFeedback{}, false},
		{"429 with Retry-After", 429, []string{"Retry-After", "2", "X-RateLimit-Remaining", "9000"}, RateFeedback{Hold: 2 * time.Second}, true},
		{"429 with a Retry-After date", 429, []string{"Retry-After", now.Add(time.Minute).Format(http.TimeFormat)}, RateFeedback{Hold: time.Minute}, true},
		{"429 with an endless Retry-After", 429, []string{"Retry-After", "1e12"}, RateFeedback{Hold: maxHold}, true},
		{"429 never lifts", 429, []string{"X-RateLimit-Remaining", "9000"}, RateFeedback{}, false},
		{"429 with none remaining", 429, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "5"}, RateFeedback{Hold: 5 * time.Second}, true},
		{"Retry-After on a 503 is the retry policy's", 503, []string{"Retry-After", "5"}, RateFeedback{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for i := 0; i+1 < len(tt.header); i += 2 {
				h.Set(tt.header[i], tt.header[i+1])
			}
			got, ok := rateFeedback(tt.status, h, now)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// feedbackCounter is a FeedbackLimiter that records what it was told.
type feedbackCounter struct {
	countingLimiter
	mu   sync.Mutex
	told []RateFeedback
}

func (l *feedbackCounter) Feedback(_ context.Context, f RateFeedback) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.told = append(l.told, f)
}

// countingLimiter counts its waits and keeps the max wait CheckWait would
// apply for its caller.
type countingLimiter struct {
	mu      sync.Mutex
	n       int
	maxWait time.Duration
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	d := clientMaxWait(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.maxWait = d
	return nil
}

func TestNewAttemptLimiter(t *testing.T) {
	t.Parallel()
	shared := newWindowLimiter(100, 10, 0, time.Now)
	user := &countingLimiter{}
	fleet := &feedbackCounter{}
	ctx := context.Background()

	lim := newAttemptLimiter(defaultRateLimitConfig(), time.Minute, time.Now)
	builtin, ok := lim.(*windowLimiter)
	require.True(t, ok, "%T", lim)
	assert.Equal(t, DefaultRequestsPerSecond, builtin.second.size)
	assert.Equal(t, DefaultRequestsPerHour, builtin.hour.size)

	assert.Same(t, shared, newAttemptLimiter(rateLimitConfig{limiter: shared}, time.Minute, time.Now), "a shared built-in limiter keeps its levels and its hold")

	off, ok := newAttemptLimiter(rateLimitConfig{off: true}, time.Minute, time.Now).(*holdingLimiter)
	require.True(t, ok)
	assert.Nil(t, off.inner, "no limiter, only the server's hold")

	wrapped := newAttemptLimiter(rateLimitConfig{limiter: user}, 42*time.Second, time.Now)
	require.NoError(t, turn(wrapped, ctx, 42*time.Second, nil))
	assert.Equal(t, 1, user.n)
	assert.Equal(t, 42*time.Second, user.maxWait, "the client's max wait reaches the Limiter's context")
	wrapped.feedback(ctx, RateFeedback{Hold: time.Hour})
	err := turn(wrapped, ctx, time.Minute, nil)
	require.ErrorIs(t, err, ErrRateLimited, "the client keeps the server's hold for a plain Limiter")
	assert.Equal(t, 1, user.n, "held before the Limiter was asked")

	forwarding := newAttemptLimiter(rateLimitConfig{limiter: fleet}, time.Minute, time.Now)
	forwarding.feedback(ctx, RateFeedback{Hold: time.Hour})
	forwarding.feedback(ctx, RateFeedback{Lift: true})
	assert.Equal(t, []RateFeedback{{Hold: time.Hour}, {Lift: true}}, fleet.told)
	require.NoError(t, turn(forwarding, ctx, time.Minute, nil), "a FeedbackLimiter holds back by itself; the client adds no hold")
	assert.Equal(t, 1, fleet.n)
}

func TestMaxWaitIsOneSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		client    time.Duration // WithMaxWait
		own       time.Duration // NewLimiter's maxWait
		wantLimit time.Duration
		wantName  string
	}{
		{"the client's when the limiter has none", 10 * time.Second, 0, 10 * time.Second, "WithMaxWait"},
		{"the client's when smaller", 10 * time.Second, time.Minute, 10 * time.Second, "WithMaxWait"},
		{"the limiter's when smaller", time.Minute, 10 * time.Second, 10 * time.Second, "NewLimiter"},
		{"the client's on a tie", 10 * time.Second, 10 * time.Second, 10 * time.Second, "WithMaxWait"},
		{"a client accepting no wait", 0, time.Minute, 0, "WithMaxWait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// One request a second: the second request asks for a wait of
			// a second and its guard, over every max wait above.
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			l := newWindowLimiter(1_000_000, 1, tt.own, clk.now)
			require.NoError(t, turn(l, context.Background(), tt.client, nil))
			clk.advance(time.Second + secondGuard - tt.wantLimit - time.Millisecond)
			err := turn(l, context.Background(), tt.client, nil)
			require.ErrorIs(t, err, ErrRateLimited)
			var apiErr *APIError
			require.True(t, errors.As(err, &apiErr))
			wait := tt.wantLimit + time.Millisecond
			assert.Equal(t, wait, apiErr.RetryAfter)
			assert.Equal(t, "per-second limit: wait of "+wait.String()+" exceeds the max wait of "+tt.wantLimit.String()+" ("+tt.wantName+")", apiErr.Message)
		})
	}
}

func TestCheckWaitAppliesTheClientsMaxWait(t *testing.T) {
	t.Parallel()
	withClient := contextWithMaxWait(context.Background(), 5*time.Second)
	deadline, cancel := context.WithTimeout(withClient, time.Second)
	defer cancel()
	ended, end := context.WithCancel(context.Background())
	end()
	tests := []struct {
		name    string
		ctx     context.Context
		d, own  time.Duration
		wantErr string // "" for nil
	}{
		{"within the client's", withClient, 4 * time.Second, time.Minute, ""},
		{"over the client's", withClient, 6 * time.Second, time.Minute, "fleet limit: wait of 6s exceeds the max wait of 5s (WithMaxWait)"},
		{"over the limiter's own", withClient, 3 * time.Second, 2 * time.Second, "fleet limit: wait of 3s exceeds the max wait of 2s (the limiter's own)"},
		{"outside a client: DefaultMaxWait", context.Background(), DefaultMaxWait + time.Second, 0, "fleet limit: wait of 1m1s exceeds the max wait of 1m0s (WithMaxWait)"},
		{"outside a client, within DefaultMaxWait", context.Background(), DefaultMaxWait, 0, ""},
		{"past the deadline", deadline, 2 * time.Second, 0, "fleet limit: wait of 2s would end after the context's deadline"},
		{"no wait", withClient, 0, time.Minute, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckWait(tt.ctx, tt.d, tt.own, "fleet limit")
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrRateLimited)
			var apiErr *APIError
			require.True(t, errors.As(err, &apiErr))
			assert.Equal(t, tt.wantErr, apiErr.Message)
			assert.Equal(t, tt.d, apiErr.RetryAfter)
			assert.Zero(t, apiErr.StatusCode)
		})
	}
	assert.ErrorIs(t, CheckWait(ended, 0, 0, "fleet limit"), context.Canceled, "an ended context is its own error")
}

func TestIdleBurstDoesNotWait(t *testing.T) {
	t.Parallel()
	// A burst of 45 from an idle client: under the limit of 50 a second,
	// so no request waits (the old token bucket made each wait 20.8 ms).
	lim := newAttemptLimiter(defaultRateLimitConfig(), DefaultMaxWait, time.Now)
	var wg sync.WaitGroup
	waited := make(chan waitRecords, 45)
	for range 45 {
		wg.Go(func() {
			var rec waitRecords
			assert.NoError(t, turn(lim, context.Background(), DefaultMaxWait, &rec))
			waited <- rec
		})
	}
	wg.Wait()
	close(waited)
	for rec := range waited {
		assert.Zero(t, rec.n, "%v", rec.all())
	}
}

// turn waits for a turn and reports the request answered at once, as the
// transport does for a request whose response comes straight back.
func turn(l attemptLimiter, ctx context.Context, maxWait time.Duration, rec *waitRecords) error {
	t, err := l.acquire(ctx, maxWait, rec)
	l.done(t)
	return err
}

func TestSecondCountsFromTheResponse(t *testing.T) {
	t.Parallel()
	// One request a second. The server counts a request when it arrives,
	// at the latest when its response comes back: the next may go a
	// second (and the guard) after that response, or after release +
	// maxTransit when no response came back.
	tests := []struct {
		name     string
		answerIn time.Duration // -1: the limiter never hears of the response
		want     time.Duration // the next request's wait, from the release
	}{
		{"fast response", 2 * time.Millisecond, 2*time.Millisecond + time.Second + secondGuard},
		{"slow response", 200 * time.Millisecond, 200*time.Millisecond + time.Second + secondGuard},
		{"response slower than maxTransit", 3 * time.Second, maxTransit + time.Second + secondGuard},
		{"no response heard of", -1, maxTransit + time.Second + secondGuard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			l := newWindowLimiter(1_000_000, 1, 0, clk.now)
			ticket, err := l.acquire(context.Background(), time.Minute, nil)
			require.NoError(t, err)
			if tt.answerIn >= 0 {
				clk.advance(tt.answerIn)
				l.done(ticket)
				clk.advance(-tt.answerIn)
			}
			// A max wait of a nanosecond turns the wait into a refusal
			// that says how long it would have been.
			_, err = l.acquire(context.Background(), time.Nanosecond, nil)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.want, apiErr.RetryAfter)
		})
	}
}
