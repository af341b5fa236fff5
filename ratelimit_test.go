package seoapi_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func newJSONLogger(w *syncBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestHourlyBudgetFailsFast(t *testing.T) {
	t.Parallel()
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, ws := fake.IssueKey(seoapitest.PlanEnterprise)
	c, err := seoapi.NewClient(srv.URL, key, seoapi.WithRateLimit(100, 50))
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 100 {
		_, _, err := c.Projects.List(ctx, ws, nil)
		require.NoError(t, err, "call %d", i+1)
	}
	start := time.Now()
	_, _, err = c.Projects.List(ctx, ws, nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Greater(t, apiErr.RetryAfter, 55*time.Minute)
	assert.LessOrEqual(t, apiErr.RetryAfter, time.Hour+5*time.Second)
	assert.Zero(t, apiErr.StatusCode, "refused locally, not by the server")
	assert.Equal(t, 0, apiErr.Attempts)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Len(t, fake.Requests(), 100, "the 101st was never sent")
}

func TestConcurrentClientGetsNo429(t *testing.T) {
	t.Parallel()
	// The fake enforces the client's own per-second limit with a strict
	// rolling window, scaled up to keep the test short.
	const perSecond = 200
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{PerSecond: perSecond})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, ws := fake.IssueKey(seoapitest.PlanEnterprise)
	c, err := seoapi.NewClient(srv.URL, key, seoapi.WithRateLimit(1_000_000, perSecond), seoapi.WithMaxRetries(0))
	require.NoError(t, err)

	const goroutines, each = 8, 60
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*each)
	for range goroutines {
		wg.Go(func() {
			for range each {
				if _, _, err := c.Projects.List(context.Background(), ws, nil); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	assert.Zero(t, fake.Throttled(), "no 429s")
	assert.Len(t, fake.Requests(), goroutines*each)
}

func TestServerRemainingZeroHoldsLaterRequests(t *testing.T) {
	t.Parallel()
	// Remaining 0 with a reset an hour ahead: the next call fails fast
	// without being sent.
	rec := newRecorder(t, respond(200, `[]`, "X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "3600"))
	c := newClient(t, rec.srv.URL)
	_, resp, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 100, resp.Rate.Limit)
	assert.Equal(t, 0, resp.Rate.Remaining)
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Greater(t, apiErr.RetryAfter, 59*time.Minute)
	assert.Len(t, rec.requests(), 1)

	// A reset a second ahead (as a Unix time): the next call waits for it.
	reset := fmt.Sprint(time.Now().Add(time.Second).Unix() + 1)
	rec = newRecorder(t, respond(200, `[]`, "RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", reset))
	c = newClient(t, rec.srv.URL)
	_, resp, err = c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Equal(t, 0, resp.Rate.Remaining)
	assert.Equal(t, reset, fmt.Sprint(resp.Rate.Reset.Unix()))
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, rec.requests(), 2)
	assert.False(t, time.Now().Before(resp.Rate.Reset), "the second call was held until the reset")
}

func TestNewLimiterValidates(t *testing.T) {
	t.Parallel()
	_, err := seoapi.NewLimiter(0, 1, time.Second)
	assert.ErrorIs(t, err, seoapi.ErrInvalidArgument)
	_, err = seoapi.NewLimiter(1, 1, -1)
	assert.ErrorIs(t, err, seoapi.ErrInvalidArgument)
}

// thirtyYears is a reset 30 years ahead, as a Unix time: a bad header.
func thirtyYears() string {
	return fmt.Sprint(time.Now().AddDate(30, 0, 0).Unix())
}

func TestBadResetDoesNotBrickTheClient(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", thirtyYears()))
	c := newClient(t, rec.srv.URL)
	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.LessOrEqual(t, apiErr.RetryAfter, time.Hour+2*time.Second, "held for the longest published window at most")
	assert.Greater(t, apiErr.RetryAfter, 59*time.Minute)
	assert.Contains(t, apiErr.Message, "server rate limit: wait of")
	assert.Len(t, rec.requests(), 1, "the held call was not sent")
}

// TestStaleAnswerKeepsTheHold: a slow call is in flight when another
// learns that no requests remain for an hour. The slow call's answer says
// requests remain, but it was sent before the hold was asked for, so it
// says nothing of it: the hold stays, for the client's own limiter, a
// shared one, and none.
func TestStaleAnswerKeepsTheHold(t *testing.T) {
	t.Parallel()
	shared, err := seoapi.NewLimiter(100, 50, 0)
	require.NoError(t, err)
	limiters := map[string]seoapi.Option{"own": seoapi.WithRateLimit(100, 50), "shared": seoapi.WithLimiter(shared), "off": seoapi.WithoutRateLimit()}
	for name, limiter := range limiters {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			arrived, release := make(chan struct{}), make(chan struct{})
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Path == "/api/workspaces/slow/projects" {
					close(arrived)
					<-release
					w.Header().Set("X-RateLimit-Remaining", "5")
				} else {
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", "3600")
				}
				fmt.Fprint(w, `[]`)
			})
			c, err := seoapi.NewClient(rec.srv.URL, testKey, limiter)
			require.NoError(t, err)
			slow := make(chan error)
			go func() {
				_, _, err := c.Projects.List(context.Background(), "slow", nil)
				slow <- err
			}()
			<-arrived
			_, _, err = c.Workspaces.List(context.Background(), nil)
			require.NoError(t, err, "its answer asks for a hold of an hour")
			close(release)
			require.NoError(t, <-slow)
			_, _, err = c.Workspaces.List(context.Background(), nil)
			require.ErrorIs(t, err, seoapi.ErrRateLimited, "the slow call's answer did not lift the newer hold")
			assert.Contains(t, err.Error(), "server rate limit")
			assert.Len(t, rec.requests(), 2)
		})
	}
}

func TestTooManyRequestsHoldsEveryCall(t *testing.T) {
	t.Parallel()
	// A 429 with Retry-After holds back every call of the client, not only
	// the one that got it, also with the client-side limiter off.
	rec := newRecorder(t, respond(429, `{"error":"slow down"}`, "Retry-After", "3600"))
	c := newClient(t, rec.srv.URL, seoapi.WithMaxRetries(0))
	_, _, err := c.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	_, _, err = c.Projects.List(context.Background(), "ws_1", nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited)
	var apiErr *seoapi.APIError
	require.True(t, errors.As(err, &apiErr))
	assert.Zero(t, apiErr.StatusCode, "refused before sending")
	assert.Equal(t, "/api/workspaces/ws_1/projects", mustPath(t, apiErr.URL))
	assert.Len(t, rec.requests(), 1)
}

func mustPath(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Path
}

func TestSharedLimiterSharesTheServersHold(t *testing.T) {
	t.Parallel()
	lim, err := seoapi.NewLimiter(seoapi.DefaultRequestsPerHour, seoapi.DefaultRequestsPerSecond, 0)
	require.NoError(t, err)
	rec := newRecorder(t, respond(200, `[]`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "3600"))
	first := newLimitedClient(t, rec.srv.URL, lim)
	second := newLimitedClient(t, rec.srv.URL, lim)
	_, _, err = first.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	_, _, err = second.Workspaces.List(context.Background(), nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited, "the other client sharing the limiter is held too")
	assert.Len(t, rec.requests(), 1)
}

// fleetLimiter is a Limiter written outside the core, as the fleet
// limiter is: it records the holds it is told, and asks for a wait of
// wait, refused beyond the client's max wait or, for a client that set
// none, its own bound (own, or else DefaultMaxWait).
type fleetLimiter struct {
	mu   sync.Mutex
	told []time.Duration
	wait time.Duration // the wait it asks for
	own  time.Duration // its own max wait
}

func (l *fleetLimiter) Acquire(_ context.Context, maxWait time.Duration) (func(bool), error) {
	limit, name := maxWait, "WithMaxWait"
	if limit < 0 {
		limit, name = cmp.Or(l.own, seoapi.DefaultMaxWait), "the limiter's own"
	}
	if l.wait > limit {
		return nil, seoapi.RefuseWait(l.wait, fmt.Sprintf("fleet limit: wait of %s exceeds the max wait of %s (%s)", l.wait, limit, name))
	}
	return func(bool) {}, nil
}

func (l *fleetLimiter) Hold(_ context.Context, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.told = append(l.told, d)
}

func (l *fleetLimiter) Budget(context.Context) (seoapi.Budget, error) { return seoapi.Budget{}, nil }

// TestLimiterIsToldTheServersHold: the client tells its Limiter each hold
// and each end of one, and keeps the hold for its own requests.
func TestLimiterIsToldTheServersHold(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, firstSays("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.2"))
	lim := &fleetLimiter{}
	c := newLimitedClient(t, rec.srv.URL, lim)
	start := time.Now()
	for range 2 {
		_, _, err := c.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
	}
	assert.GreaterOrEqual(t, time.Since(start), 200*time.Millisecond, "the client kept the hold")
	lim.mu.Lock()
	defer lim.mu.Unlock()
	require.Len(t, lim.told, 2)
	assert.InDelta(t, float64(200*time.Millisecond), float64(lim.told[0]), float64(100*time.Millisecond))
	assert.Zero(t, lim.told[1], "the second answer says requests remain")
}

// TestMaxWaitIsOneSetting: a call honours its client's max wait, whichever
// limiter is behind it; a limiter's own bound stands in only for a client
// that set none, and never cuts a longer one.
func TestMaxWaitIsOneSetting(t *testing.T) {
	t.Parallel()
	newLimiter := func(perHour, perSecond int, own time.Duration) func(t *testing.T) seoapi.Limiter {
		return func(t *testing.T) seoapi.Limiter {
			lim, err := seoapi.NewLimiter(perHour, perSecond, own)
			require.NoError(t, err)
			return lim
		}
	}
	fleet := func(wait, own time.Duration) func(t *testing.T) seoapi.Limiter {
		return func(*testing.T) seoapi.Limiter { return &fleetLimiter{wait: wait, own: own} }
	}
	const none = -1 // no WithMaxWait
	tests := []struct {
		name      string
		limiter   func(t *testing.T) seoapi.Limiter
		clientMax time.Duration
		sent      int
		message   string // "" when the second call goes through
	}{
		{"shared limiter: the client's max wait applies", newLimiter(1, 1000, time.Hour+time.Minute),
			100 * time.Millisecond, 1, "exceeds the max wait of 100ms (WithMaxWait)"},
		{"shared limiter: its own bound stands in for none", newLimiter(1, 1000, 100*time.Millisecond),
			none, 1, "exceeds the max wait of 100ms (NewLimiter)"},
		{"shared limiter: its own bound never cuts a longer one", newLimiter(1000, 1, 100*time.Millisecond),
			5 * time.Second, 2, ""},
		{"a Limiter gets the client's max wait", fleet(10*time.Second, 0),
			5 * time.Second, 0, "fleet limit: wait of 10s exceeds the max wait of 5s (WithMaxWait)"},
		{"a Limiter waits within it", fleet(10*time.Second, 0), 20 * time.Second, 2, ""},
		{"a Limiter's own bound stands in for none", fleet(10*time.Second, 5*time.Second),
			none, 0, "fleet limit: wait of 10s exceeds the max wait of 5s (the limiter's own)"},
		{"a Limiter's own bound never cuts a longer one", fleet(10*time.Second, 5*time.Second), 20 * time.Second, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, `[]`))
			var opts []seoapi.Option
			if tt.clientMax != none {
				opts = append(opts, seoapi.WithMaxWait(tt.clientMax))
			}
			c := newLimitedClient(t, rec.srv.URL, tt.limiter(t), opts...)
			var err error
			for range 2 {
				if _, _, err = c.Workspaces.List(context.Background(), nil); err != nil {
					break
				}
			}
			assert.Len(t, rec.requests(), tt.sent)
			if tt.message == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, seoapi.ErrRateLimited)
			var apiErr *seoapi.APIError
			require.True(t, errors.As(err, &apiErr))
			assert.Contains(t, apiErr.Message, tt.message)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

// firstSays answers every request with an empty list, the first one with
// the given headers, and every later one saying that requests remain.
func firstSays(headerKV ...string) http.HandlerFunc {
	var n atomic.Int32
	return func(w http.ResponseWriter, _ *http.Request) {
		if n.Add(1) == 1 {
			for i := 0; i+1 < len(headerKV); i += 2 {
				w.Header().Set(headerKV[i], headerKV[i+1])
			}
		} else {
			w.Header().Set("X-RateLimit-Remaining", "9")
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[]`))
	}
}

// TestServerHoldIsReportedAsAWait: a hold the server asked for is kept
// and reported as one wait. Load can only make the second request later,
// so the test bounds its arrival from below, by the hold.
func TestServerHoldIsReportedAsAWait(t *testing.T) {
	t.Parallel()
	const hold = 500 * time.Millisecond
	var mu sync.Mutex
	var arrived []time.Time
	answer := firstSays("X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "0.5")
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived = append(arrived, time.Now())
		mu.Unlock()
		answer(w, r)
	})
	log := &eventLog{}
	c := newClient(t, rec.srv.URL, seoapi.WithObserver(log))
	for range 2 {
		_, _, err := c.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
	}
	var waits []seoapi.Event
	for _, e := range log.all() {
		if e.Type == seoapi.EventLimiterWait {
			waits = append(waits, e)
		}
	}
	require.Len(t, waits, 1)
	assert.Equal(t, seoapi.WaitServer, waits[0].Level)
	assert.Equal(t, 1, waits[0].Attempt)
	assert.Positive(t, waits[0].Duration)
	require.Len(t, arrived, 2)
	assert.GreaterOrEqual(t, arrived[1].Sub(arrived[0]), hold, "the second request went inside the hold")
}

// BenchmarkRateLimitedThroughput measures the steady rate the built-in
// limiter achieves for 8 goroutines sharing a Client, against a fake API
// enforcing the same per-second limit with a strict rolling window. A
// first second's worth of calls fills the window before the clock starts,
// so the idle burst does not flatter the figure, and at least a second's
// worth is measured, so that a smoke run (-benchtime 1x) still reports a
// rate. It reports the achieved share of the limit (goal: 0.98 or more)
// and the 429s (goal: 0).
//
//	go test -run '^$' -bench RateLimitedThroughput -benchtime 2000x
func BenchmarkRateLimitedThroughput(b *testing.B) {
	const perSecond = seoapi.DefaultRequestsPerSecond
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{PerSecond: perSecond})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, ws := fake.IssueKey(seoapitest.PlanEnterprise)
	c, err := seoapi.NewClient(srv.URL, key, seoapi.WithRateLimit(1_000_000, perSecond), seoapi.WithMaxRetries(0))
	if err != nil {
		b.Fatal(err)
	}
	list := func(n int) {
		var wg sync.WaitGroup
		work := make(chan struct{}, n)
		for range n {
			work <- struct{}{}
		}
		close(work)
		for range 8 {
			wg.Go(func() {
				for range work {
					// A 429 is counted by the fake and reported below.
					_, _, err := c.Projects.List(context.Background(), ws, nil)
					if err != nil && !errors.Is(err, seoapi.ErrRateLimited) {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
	}
	list(perSecond)
	calls := max(b.N, perSecond)
	b.ResetTimer()
	start := time.Now()
	list(calls)
	elapsed := time.Since(start)
	b.StopTimer()
	achieved := float64(calls) / elapsed.Seconds()
	b.ReportMetric(achieved, "req/s")
	b.ReportMetric(achieved/perSecond, "share-of-limit")
	b.ReportMetric(float64(fake.Throttled()), "429s")
}

// TestConflictingLimiterOptions: WithLimiter, WithRateLimit and
// WithoutRateLimit each choose the client's limiter; two of them, in
// either order, fail NewClient instead of the last one silently winning.
func TestConflictingLimiterOptions(t *testing.T) {
	t.Parallel()
	shared, err := seoapi.NewLimiter(100, 10, 0)
	require.NoError(t, err)
	pairs := map[string][2]seoapi.Option{
		"WithLimiter, WithRateLimit":      {seoapi.WithLimiter(shared), seoapi.WithRateLimit(100, 10)},
		"WithLimiter, WithoutRateLimit":   {seoapi.WithLimiter(shared), seoapi.WithoutRateLimit()},
		"WithRateLimit, WithoutRateLimit": {seoapi.WithRateLimit(100, 10), seoapi.WithoutRateLimit()},
	}
	for name, pair := range pairs {
		for _, opts := range [][]seoapi.Option{{pair[0], pair[1]}, {pair[1], pair[0]}} {
			_, err := seoapi.NewClient("https://api.example.com", testKey, opts...)
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument, name)
			assert.Contains(t, err.Error(), "conflicting limiter options")
		}
	}
	for _, opt := range []seoapi.Option{seoapi.WithLimiter(shared), seoapi.WithRateLimit(100, 10), seoapi.WithoutRateLimit()} {
		_, err := seoapi.NewClient("https://api.example.com", testKey, opt, opt)
		require.NoError(t, err, "the same option twice is no conflict")
	}
}

// budgetLimiter is a Limiter of one's own that tells its budget.
type budgetLimiter struct{}

func (budgetLimiter) Acquire(context.Context, time.Duration) (func(bool), error) {
	return func(bool) {}, nil
}

func (budgetLimiter) Hold(context.Context, time.Duration) {}

func (budgetLimiter) Budget(context.Context) (seoapi.Budget, error) {
	return seoapi.Budget{PerHour: 7, UsedHour: 3}, nil
}

// waitFunc is a Limiter of one's own made of a wait: it keeps no hold and
// tells no budget.
type waitFunc func(ctx context.Context) error

func (f waitFunc) Acquire(ctx context.Context, _ time.Duration) (func(bool), error) {
	if err := f(ctx); err != nil {
		return nil, err
	}
	return func(bool) {}, nil
}

func (waitFunc) Hold(context.Context, time.Duration) {}

func (waitFunc) Budget(context.Context) (seoapi.Budget, error) {
	return seoapi.Budget{}, fmt.Errorf("%w: no budget", seoapi.ErrInvalidArgument)
}

// TestClientBudget: Budget tells what the client's limiter counts, the
// built-in one (its own or shared) exactly, and sends nothing.
func TestClientBudget(t *testing.T) {
	t.Parallel()
	shared, err := seoapi.NewLimiter(100, 50, 0)
	require.NoError(t, err)
	for name, limiter := range map[string]seoapi.Option{"own": seoapi.WithRateLimit(100, 50), "shared": seoapi.WithLimiter(shared)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t, respond(200, `[]`))
			c, err := seoapi.NewClient(rec.srv.URL, testKey, limiter)
			require.NoError(t, err)
			ctx := context.Background()
			for range 30 {
				_, _, err := c.Workspaces.List(ctx, nil)
				require.NoError(t, err)
			}
			b, err := c.Budget(ctx)
			require.NoError(t, err)
			assert.Equal(t, 100, b.PerHour)
			assert.Equal(t, 50, b.PerSecond)
			assert.Equal(t, 30, b.UsedHour)
			assert.LessOrEqual(t, b.UsedSecond, 30)
			assert.True(t, b.HoldUntil.IsZero())
			assert.Len(t, rec.requests(), 30, "asking for the budget sends nothing")
		})
	}
	t.Run("the server's hold", func(t *testing.T) {
		t.Parallel()
		rec := newRecorder(t, respond(200, `[]`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "600"))
		for _, limiter := range []seoapi.Option{seoapi.WithRateLimit(100, 50), seoapi.WithLimiter(budgetLimiter{})} {
			c, err := seoapi.NewClient(rec.srv.URL, testKey, limiter)
			require.NoError(t, err)
			before := time.Now()
			_, _, err = c.Workspaces.List(context.Background(), nil)
			require.NoError(t, err)
			after := time.Now()
			b, err := c.Budget(context.Background())
			require.NoError(t, err)
			assert.False(t, b.HoldUntil.Before(before.Add(10*time.Minute-time.Second)), "%v", b.HoldUntil)
			assert.False(t, b.HoldUntil.After(after.Add(10*time.Minute)), "%v", b.HoldUntil)
		}
	})
	t.Run("a Limiter of one's own", func(t *testing.T) {
		t.Parallel()
		c, err := seoapi.NewClient("https://api.example.com", testKey, seoapi.WithLimiter(budgetLimiter{}))
		require.NoError(t, err)
		b, err := c.Budget(context.Background())
		require.NoError(t, err)
		assert.Equal(t, seoapi.Budget{PerHour: 7, UsedHour: 3}, b)
	})
	for name, limiter := range map[string]seoapi.Option{"off": seoapi.WithoutRateLimit(), "a Limiter without a budget": seoapi.WithLimiter(waitFunc(func(context.Context) error { return nil }))} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := seoapi.NewClient("https://api.example.com", testKey, limiter)
			require.NoError(t, err)
			_, err = c.Budget(context.Background())
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
		})
	}
}
