package seoapi

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clock is a manual clock for the limiter, safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// onClock returns the built-in limiter on clk, whose waits move clk on
// instead of sleeping.
func onClock(perHour, perSecond int, maxWait time.Duration, clk *clock) *windowLimiter {
	l := newWindowLimiter(perHour, perSecond, maxWait, clk.now)
	l.sleep = func(ctx context.Context, d time.Duration) error {
		clk.advance(max(d, 0))
		return ctx.Err()
	}
	return l
}

// builtin is l as a client without a reserve uses it.
func builtin(l *windowLimiter) attemptLimiter { return builtinLimiter{windowLimiter: l} }

// acquireNow lets one request go through l for a client that set no max
// wait, and reports it answered at once.
func acquireNow(ctx context.Context, l Limiter) error {
	done, err := l.Acquire(ctx, -1)
	if err == nil {
		done(true)
	}
	return err
}

func TestWindowLimiterHourIsExactAndRolling(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l := newWindowLimiter(3, 1000, time.Minute, clk.now)
	ctx := context.Background()
	for i := range 3 {
		require.NoError(t, acquireNow(ctx, l), i)
		clk.advance(10 * time.Minute)
	}
	// 30 minutes in, the hour holds 3: the 4th must wait for the first to
	// leave the window at 1h (+ guard), which is beyond maxWait.
	err := acquireNow(ctx, l)
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, 30*time.Minute+hourGuard, apiErr.RetryAfter)

	clk.advance(30*time.Minute + hourGuard)
	require.NoError(t, acquireNow(ctx, l), "the first request left the window")
	err = acquireNow(ctx, l)
	require.ErrorIs(t, err, ErrRateLimited, "only one slot freed")
	clk.advance(10 * time.Minute)
	require.NoError(t, acquireNow(ctx, l), "the second left too")
}

func TestWindowLimiterNeverMoreThanLimitInAnyHour(t *testing.T) {
	t.Parallel()
	// A token bucket of burst 10 000 would let ~20 000 through in the first
	// hour; the window lets exactly perHour through in any rolling hour.
	clk := newClock()
	const perHour = 50
	l := newWindowLimiter(perHour, 1_000_000, time.Nanosecond, clk.now)
	var sent []time.Time
	for len(sent) < 3*perHour {
		err := acquireNow(context.Background(), l)
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

func TestReadRateHeaders(t *testing.T) {
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
		{"reset as an HTTP date", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {now.UTC().Add(time.Minute).Format(http.TimeFormat)}},
			Rate{Remaining: 0, Reset: now.Add(time.Minute)}},
		{"reset past 1e12 ignored", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1e13"}}, Rate{}},
		{"reset of 1e12 a Unix time", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1e12"}}, Rate{Reset: time.Unix(1e12, 0)}},
		{"HTTP date past 31 years ignored", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"Fri, 31 Dec 2999 23:59:59 GMT"}}, Rate{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readRateHeaders(tt.header, now).rate
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
	clk := newClock()
	l := newWindowLimiter(1_000_000, 50, time.Nanosecond, clk.now)
	ctx := context.Background()
	// An idle limiter lets a whole second's worth through at once.
	for i := range 50 {
		var rec waitRecords
		require.NoError(t, turn(builtin(l), ctx, time.Minute, &rec), i)
		assert.Empty(t, rec, "request %d waited", i)
	}
	// The 51st waits until the first leaves the second and its guard.
	err := acquireNow(ctx, l)
	require.ErrorIs(t, err, ErrRateLimited)
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, time.Second+secondGuard, apiErr.RetryAfter)
	assert.Contains(t, apiErr.Message, "per-second limit")

	clk.advance(time.Second + secondGuard)
	require.NoError(t, acquireNow(ctx, l), "the burst left the window")
	clk.advance(400 * time.Millisecond)
	for i := range 49 {
		require.NoError(t, acquireNow(ctx, l), "slot %d of the rolling second", i)
	}
	err = acquireNow(ctx, l)
	require.ErrorIs(t, err, ErrRateLimited, "50 released within the last second")
	require.True(t, errors.As(err, &apiErr))
	assert.Equal(t, time.Second+secondGuard-400*time.Millisecond, apiErr.RetryAfter, "until the oldest of them leaves")
}

// TestWindowLimiterNeverMoreThanLimitInAnyWindow drives both levels with
// an irregular clock and checks every rolling window of the releases.
func TestWindowLimiterNeverMoreThanLimitInAnyWindow(t *testing.T) {
	t.Parallel()
	const perSecond, perHour = 7, 100
	clk := newClock()
	l := newWindowLimiter(perHour, perSecond, time.Nanosecond, clk.now)
	steps := []time.Duration{0, time.Millisecond, 0, 90 * time.Millisecond, 3 * time.Millisecond, 0, 500 * time.Millisecond, 17 * time.Second}
	var sent []time.Time
	for i := 0; len(sent) < 3*perHour; i++ {
		err := acquireNow(context.Background(), l)
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

// TestCancelledWaitsGiveBackTheirSlots: NewLimiter(20, 5, 0) with 20
// calls at once: 5 go, 15 queue for later seconds. Whatever order their
// waits are cancelled in, each gives its slots back in both windows: the
// hour then holds the 5 that went, and once they leave the second a new
// request goes at once, followed by 14 more within the hour.
func TestCancelledWaitsGiveBackTheirSlots(t *testing.T) {
	t.Parallel()
	orders := map[string]func(n int) []int{
		"oldest first": func(n int) []int { return rangeOf(n) },
		"newest first": func(n int) []int { o := rangeOf(n); slices.Reverse(o); return o },
		"shuffled": func(n int) []int {
			o := rangeOf(n)
			rand.New(rand.NewPCG(7, 7)).Shuffle(n, func(i, j int) { o[i], o[j] = o[j], o[i] })
			return o
		},
	}
	for name, order := range orders {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			l := newWindowLimiter(20, 5, 0, clk.now)
			queued := make(chan struct{})
			l.sleep = func(ctx context.Context, _ time.Duration) error {
				queued <- struct{}{}
				<-ctx.Done()
				return ctx.Err()
			}
			var cancels []context.CancelFunc
			var ended []chan error
			for i := range 20 {
				if i < 5 {
					_, err := builtin(l).acquire(context.Background(), time.Hour, nil)
					require.NoError(t, err, "request %d goes at once", i)
					continue
				}
				ctx, cancel := context.WithCancel(context.Background())
				end := make(chan error, 1)
				go func() {
					_, err := builtin(l).acquire(ctx, time.Hour, nil)
					end <- err
				}()
				<-queued
				cancels, ended = append(cancels, cancel), append(ended, end)
			}
			for _, i := range order(len(cancels)) {
				cancels[i]()
				require.ErrorIs(t, <-ended[i], context.Canceled)
			}
			b, err := l.Budget(context.Background())
			require.NoError(t, err)
			assert.Equal(t, 5, b.UsedHour, "only the requests that went hold the hour")

			clk.advance(secondSpan) // the 5 leave the second
			l.sleep = func(context.Context, time.Duration) error { return errors.New("must not wait") }
			_, err = builtin(l).acquire(context.Background(), 0, nil)
			require.NoError(t, err, "a new request goes at once")
			for i := range 14 {
				clk.advance(secondSpan)
				_, err = builtin(l).acquire(context.Background(), 0, nil)
				require.NoError(t, err, "request %d of the hour", 7+i)
			}
			_, err = builtin(l).acquire(context.Background(), 0, nil)
			require.ErrorIs(t, err, ErrRateLimited)
			assert.Contains(t, err.Error(), "hourly limit", "the 21st of the hour")
		})
	}
}

func rangeOf(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

func TestWindowLimiterRefusesWaitPastDeadline(t *testing.T) {
	t.Parallel()
	deadline := time.Now().Add(time.Hour)
	clk := &clock{t: deadline.Add(-100 * time.Millisecond)}
	l := onClock(1_000_000, 1, time.Hour, clk)
	require.NoError(t, acquireNow(context.Background(), l))
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	err := acquireNow(ctx, l)
	require.ErrorIs(t, err, ErrRateLimited, "a ~1 s wait cannot end before a deadline 100 ms ahead")
	assert.Contains(t, err.Error(), "would end after the context's deadline")
	b, _ := l.Budget(ctx)
	assert.Equal(t, 1, b.UsedHour, "a refused wait takes no slot")
}

func TestWaitTurnRecordsEachWait(t *testing.T) {
	t.Parallel()
	// One request per second: the second request waits for the hold the
	// server asked for, then for the rolling second.
	clk := newClock()
	l := onClock(1_000_000, 1, 0, clk)
	var rec waitRecords
	sent := clk.now()
	_, err := builtin(l).acquire(context.Background(), time.Minute, &rec)
	require.NoError(t, err)
	require.Empty(t, rec)
	l.update(sent, 20*time.Millisecond)
	start := clk.now()
	require.NoError(t, turn(builtin(l), context.Background(), time.Minute, &rec))
	assert.Equal(t, []waitRecord{
		{level: WaitServer, start: start, d: 20 * time.Millisecond},
		{level: WaitPerSecond, start: start.Add(20 * time.Millisecond), d: secondSpan - 20*time.Millisecond},
	}, []waitRecord(rec), "the first request was never answered: it counts for secondSpan")
}

// TestServerHold: a hold is kept by the built-in limiter and by a client
// around another Limiter or none; an end (0) lifts it only when the request
// answered was sent after the last hold was asked for.
func TestServerHold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		feedback []time.Duration // one a millisecond, each the answer to a request sent just before; 0 ends the hold
		want     time.Duration   // the hold left after the last
	}{
		{"none", nil, 0},
		{"hold", []time.Duration{time.Minute}, time.Minute},
		{"a shorter hold does not shorten it", []time.Duration{time.Minute, time.Second}, time.Minute - time.Millisecond},
		{"a longer hold lengthens it", []time.Duration{time.Second, time.Minute}, time.Minute},
		{"clamped to the longest window", []time.Duration{30 * 365 * 24 * time.Hour}, maxHold},
		{"ended", []time.Duration{maxHold, 0}, 0},
		{"held again after an end", []time.Duration{maxHold, 0, time.Second}, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			for _, lim := range []attemptLimiter{builtin(newWindowLimiter(100, 10, 0, clk.now)), newAttemptLimiter(rateLimitConfig{off: true}, clk.now), newAttemptLimiter(rateLimitConfig{limiter: &countingLimiter{}}, clk.now)} {
				for _, f := range tt.feedback {
					sent := clk.now()
					clk.advance(time.Millisecond)
					lim.feedback(context.Background(), sent, f)
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
				clk.advance(time.Hour * 2)
			}
		})
	}
}

// TestStaleAnswerKeepsANewerHold: request A is sent, then B's answer asks
// for a hold of 30 s; A's late answer says requests remain. It must not
// lift B's hold, whatever limiter the client has; the answer to a request
// sent after the hold was asked for may.
func TestStaleAnswerKeepsANewerHold(t *testing.T) {
	t.Parallel()
	clk := newClock()
	fleet := &countingLimiter{}
	kinds := []struct {
		name string
		lim  attemptLimiter
	}{
		{"built-in", builtin(onClock(100, 10, 0, clk))},
		{"off", newAttemptLimiter(rateLimitConfig{off: true}, clk.now)},
		{"a Limiter", newAttemptLimiter(rateLimitConfig{limiter: fleet}, clk.now)},
	}
	for _, k := range kinds {
		ctx := context.Background()
		sent := clk.now()
		_, err := k.lim.acquire(ctx, time.Hour, nil)
		require.NoError(t, err)
		clk.advance(10 * time.Millisecond)
		k.lim.feedback(ctx, clk.now(), 30*time.Second)
		clk.advance(10 * time.Millisecond)
		k.lim.feedback(ctx, sent, 0)
		_, err = k.lim.acquire(ctx, 0, nil)
		require.ErrorIs(t, err, ErrRateLimited, "%s: the hold stays", k.name)
		assert.Contains(t, err.Error(), "server rate limit: wait of 29.99s")

		k.lim.feedback(ctx, clk.now(), 0)
		_, err = k.lim.acquire(ctx, 0, nil)
		require.NoError(t, err, "%s: an answer to a request sent after the hold lifts it", k.name)
		clk.advance(time.Hour)
	}
	assert.Equal(t, []time.Duration{30 * time.Second, 0}, fleet.told, "the stale end is not passed on")
}

func TestRateFeedback(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	thirtyYears := fmt.Sprint(now.Add(30 * 365 * 24 * time.Hour).Unix())
	tests := []struct {
		name   string
		status int
		header []string
		want   time.Duration // the hold; 0 ends one
		ok     bool
	}{
		{"nothing said", 200, nil, 0, false},
		{"requests remain", 200, []string{"X-RateLimit-Remaining", "12"}, 0, true},
		{"none remain until a reset ahead", 200, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30"}, 30 * time.Second, true},
		{"a reset 30 years ahead is clamped", 200, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", thirtyYears}, maxHold, true},
		{"none remain, no reset", 200, []string{"RateLimit-Remaining", "0"}, 0, false},
		{"none remain, reset passed", 200, []string{"RateLimit-Remaining", "0", "RateLimit-Reset", "1699999990"}, 0, false},
		{"429 with Retry-After", 429, []string{"Retry-After", "2", "X-RateLimit-Remaining", "9000"}, 2 * time.Second, true},
		{"429 with a Retry-After date", 429, []string{"Retry-After", now.Add(time.Minute).Format(http.TimeFormat)}, time.Minute, true},
		{"429 with an endless Retry-After", 429, []string{"Retry-After", "1e12"}, maxHold, true},
		{"429 never ends a hold", 429, []string{"X-RateLimit-Remaining", "9000"}, 0, false},
		{"429 with none remaining", 429, []string{"X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "5"}, 5 * time.Second, true},
		{"Retry-After on a 503 is the retry policy's", 503, []string{"Retry-After", "5"}, 0, false},
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

// countingLimiter is a Limiter from outside the core that counts its turns,
// keeps the last max wait it was given and the holds it was told, and
// tells no budget.
type countingLimiter struct {
	mu      sync.Mutex
	n       int
	maxWait time.Duration
	told    []time.Duration
}

func (l *countingLimiter) Acquire(_ context.Context, maxWait time.Duration) (func(bool), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.maxWait = maxWait
	return func(bool) {}, nil
}

func (l *countingLimiter) Hold(_ context.Context, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.told = append(l.told, d)
}

func (l *countingLimiter) Budget(context.Context) (Budget, error) {
	return Budget{}, invalidArgument("no budget")
}

func TestNewAttemptLimiter(t *testing.T) {
	t.Parallel()
	shared := newWindowLimiter(100, 10, 0, time.Now)
	user := &countingLimiter{}
	ctx := context.Background()

	own, ok := newAttemptLimiter(defaultRateLimitConfig(), time.Now).(builtinLimiter)
	require.True(t, ok)
	assert.Equal(t, DefaultRequestsPerSecond, own.second.size)
	assert.Equal(t, DefaultRequestsPerHour, own.hour.size)

	sharing, ok := newAttemptLimiter(rateLimitConfig{limiter: shared}, time.Now).(builtinLimiter)
	require.True(t, ok)
	assert.Same(t, shared, sharing.windowLimiter, "a shared built-in limiter keeps its windows and its hold")

	off, ok := newAttemptLimiter(rateLimitConfig{off: true}, time.Now).(*otherLimiter)
	require.True(t, ok)
	assert.Nil(t, off.inner, "no limiter, only the server's hold")

	wrapped := newAttemptLimiter(rateLimitConfig{limiter: user}, time.Now)
	require.NoError(t, turn(wrapped, ctx, 42*time.Second, nil))
	assert.Equal(t, 1, user.n)
	assert.Equal(t, 42*time.Second, user.maxWait, "the client's max wait reaches the Limiter")
	wrapped.feedback(ctx, time.Now(), time.Hour)
	wrapped.feedback(ctx, time.Now().Add(-time.Second), 0)
	assert.Equal(t, []time.Duration{time.Hour}, user.told, "told the hold, not the stale end")
	err := turn(wrapped, ctx, time.Minute, nil)
	require.ErrorIs(t, err, ErrRateLimited, "the client keeps the server's hold whatever the Limiter does")
	assert.Equal(t, 1, user.n, "held before the Limiter was asked")
	wrapped.feedback(ctx, time.Now().Add(time.Second), 0)
	require.NoError(t, turn(wrapped, ctx, time.Minute, nil), "ended by a later answer")
	assert.Equal(t, []time.Duration{time.Hour, 0}, user.told)
}

// TestMaxWaitLimit: a wait is bounded by the client's max wait; for a
// client that set none, by the limiter's own bound or DefaultMaxWait; and
// by the context's deadline.
func TestMaxWaitLimit(t *testing.T) {
	t.Parallel()
	deadline, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ended, end := context.WithCancel(context.Background())
	end()
	tests := []struct {
		name        string
		ctx         context.Context
		client, own time.Duration
		d           time.Duration
		want        string // the refusal; "" for none
	}{
		{"within the client's", context.Background(), 5 * time.Second, 2 * time.Second, 4 * time.Second, ""},
		{"over the client's", context.Background(), 5 * time.Second, time.Minute, 6 * time.Second, "wait of 6s exceeds the max wait of 5s (WithMaxWait)"},
		{"a client accepting no wait", context.Background(), 0, time.Minute, time.Millisecond, "wait of 1ms exceeds the max wait of 0s (WithMaxWait)"},
		{"none set: the limiter's own", context.Background(), -1, 2 * time.Second, 3 * time.Second, "wait of 3s exceeds the max wait of 2s (NewLimiter)"},
		{"none set, no own bound: DefaultMaxWait", context.Background(), -1, 0, DefaultMaxWait + time.Second, "wait of 1m1s exceeds the max wait of 1m0s (WithMaxWait)"},
		{"none set, within DefaultMaxWait", context.Background(), -1, 0, DefaultMaxWait, ""},
		{"past the deadline", deadline, time.Minute, 0, 2 * time.Second, "wait of 2s would end after the context's deadline"},
		{"no wait", context.Background(), 0, 0, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := maxWaitLimit{client: tt.client, own: tt.own, ownName: "NewLimiter"}.check(tt.ctx, tt.d, time.Now(), "hourly limit")
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			require.ErrorIs(t, err, ErrRateLimited)
			assert.Equal(t, "hourly limit: "+tt.want, apiErr.Message)
			assert.Equal(t, tt.d, apiErr.RetryAfter)
		})
	}
	assert.ErrorIs(t, maxWaitLimit{client: -1}.check(ended, 0, time.Now(), "fleet limit"), context.Canceled, "an ended context is its own error")
}

func TestIdleBurstDoesNotWait(t *testing.T) {
	t.Parallel()
	// A burst of 45 from an idle client: under the limit of 50 a second,
	// so no request waits (the old token bucket made each wait 20.8 ms).
	lim := newAttemptLimiter(defaultRateLimitConfig(), time.Now)
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
		assert.Empty(t, rec)
	}
}

// turn waits for a turn and reports the request answered at once, as the
// transport does for a request whose response comes straight back.
func turn(l attemptLimiter, ctx context.Context, maxWait time.Duration, rec *waitRecords) error {
	t, err := l.acquire(ctx, maxWait, rec)
	if err == nil {
		l.done(t, true)
	}
	return err
}

func TestSecondCountsFromTheResponse(t *testing.T) {
	t.Parallel()
	// One request a second. The server counts a request when it arrives,
	// at the latest when its answer comes back: the next may go a second
	// (and the guard) after that answer, or after release + maxTransit
	// when no answer came back. A request that failed may still arrive
	// until release + maxTransit, or arrived just before the failure: the
	// next goes a second (and the guard) after the later of the two.
	tests := []struct {
		name     string
		endsIn   time.Duration // -1: the limiter never hears of it
		answered bool
		freed    bool          // the slot freed before the end was heard of
		want     time.Duration // the next request's wait, from the release
	}{
		{"fast answer", 2 * time.Millisecond, true, false, 2*time.Millisecond + time.Second + secondGuard},
		{"slow answer", 200 * time.Millisecond, true, false, 200*time.Millisecond + time.Second + secondGuard},
		{"answer slower than maxTransit", 3 * time.Second, true, false, secondSpan},
		{"never heard of", -1, false, false, secondSpan},
		{"failed after 100 ms, may still arrive", 100 * time.Millisecond, false, false, secondSpan},
		{"failed after 1.5 s", 1500 * time.Millisecond, false, false, 1500*time.Millisecond + time.Second + secondGuard},
		{"failed after 3 s, its slot freed meanwhile", 3 * time.Second, false, true, 3*time.Second + time.Second + secondGuard},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			l := builtin(newWindowLimiter(1_000_000, 1, 0, clk.now))
			ticket, err := l.acquire(context.Background(), time.Minute, nil)
			require.NoError(t, err)
			if tt.endsIn >= 0 {
				clk.advance(tt.endsIn)
				if tt.freed {
					b, _ := l.Budget(context.Background())
					require.Zero(t, b.UsedSecond)
				}
				l.done(ticket, tt.answered)
				clk.advance(-tt.endsIn)
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

// TestBudgetCountsTheWindows: the built-in limiter's budget right after 30
// requests on a fresh NewLimiter(100, 50, 0), then as they leave the
// second, with the server's hold.
func TestBudgetCountsTheWindows(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l := onClock(100, 50, 0, clk)
	for range 30 {
		require.NoError(t, turn(builtin(l), context.Background(), time.Minute, nil))
	}
	b, err := l.Budget(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Budget{PerHour: 100, PerSecond: 50, UsedHour: 30, UsedSecond: 30}, b)

	l.Hold(context.Background(), time.Minute)
	clk.advance(time.Second + secondGuard)
	b, err = l.Budget(context.Background())
	require.NoError(t, err)
	assert.Equal(t, Budget{PerHour: 100, PerSecond: 50, UsedHour: 30, HoldUntil: clk.now().Add(time.Minute - time.Second - secondGuard)}, b)
}

// TestWindowsStayBounded: a client well under its limits for a long time
// keeps about as many slots in each window as are held, not every
// request it ever sent.
func TestWindowsStayBounded(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l := builtin(newWindowLimiter(10_000, 50, 0, clk.now))
	for range 20_000 {
		require.NoError(t, turn(l, context.Background(), time.Minute, nil))
		clk.advance(time.Second) // 3600 held in any hour, one in any second
	}
	w := l.(builtinLimiter).windowLimiter
	assert.LessOrEqual(t, len(w.hour.ends), 2*3602)
	assert.LessOrEqual(t, len(w.second.ends), 2*3)
}

// TestQueuedRequestWaitsForAHoldSetMeanwhile: a request waiting for its
// slot of the second is not let go inside a hold the server asked for
// while it waited.
func TestQueuedRequestWaitsForAHoldSetMeanwhile(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l := onClock(100, 1, time.Minute, clk)
	ctx := context.Background()
	require.NoError(t, acquireNow(ctx, l))
	var holdEnd time.Time
	l.sleep = func(ctx context.Context, d time.Duration) error {
		if holdEnd.IsZero() {
			l.Hold(ctx, 30*time.Second)
			holdEnd = clk.now().Add(30 * time.Second)
		}
		clk.advance(max(d, 0))
		return ctx.Err()
	}
	require.NoError(t, acquireNow(ctx, l))
	assert.False(t, clk.now().Before(holdEnd), "let go at %v, inside the hold until %v", clk.now(), holdEnd)
}

// TestResetAboveABillionIsAUnixTime: a reset over 1e9 and up to 1e12 is
// a Unix time, also past what a time.Duration holds (about 9.2e9 seconds),
// and no requests remaining until it holds the limiter.
func TestResetAboveABillionIsAUnixTime(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	for _, reset := range []string{"5000000000", "9999999999", "100000000000"} {
		h := http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {reset}}
		r := readRateHeaders(h, now)
		if r.rate.Reset.IsZero() || !r.exhausted {
			t.Errorf("Reset %s: Rate.Reset %v, exhausted %v; want the Unix time %s read and the budget exhausted",
				reset, r.rate.Reset, r.exhausted, reset)
		}
		if d, ok := r.hold(http.StatusOK, now); !ok || d <= 0 {
			t.Errorf("Reset %s with no requests remaining: no hold (%s, %v)", reset, d, ok)
		}
	}
}
