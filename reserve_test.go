package seoapi_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithReserveValidates: a reserve no limiter of the client can keep
// fails NewClient with ErrInvalidArgument, whatever the order of the
// options; one it can keep is accepted.
func TestWithReserveValidates(t *testing.T) {
	t.Parallel()
	shared, err := seoapi.NewLimiter(100, 50, 0)
	require.NoError(t, err)
	tests := []struct {
		name    string
		opts    []seoapi.Option
		wantErr string // "" when accepted
	}{
		{"negative hour", []seoapi.Option{seoapi.WithReserve(-1, 0)}, "cannot be negative"},
		{"negative second", []seoapi.Option{seoapi.WithReserve(0, -1)}, "cannot be negative"},
		{"the whole hour of the default limits", []seoapi.Option{seoapi.WithReserve(seoapi.DefaultRequestsPerHour, 0)}, "smaller than the client's limits"},
		{"the whole second of the own limits", []seoapi.Option{seoapi.WithRateLimit(100, 5), seoapi.WithReserve(0, 5)}, "smaller than the client's limits, 100 an hour and 5 a second"},
		{"the own limits, given after", []seoapi.Option{seoapi.WithReserve(0, 5), seoapi.WithRateLimit(100, 5)}, "smaller than the client's limits"},
		{"the whole hour of the shared limiter", []seoapi.Option{seoapi.WithLimiter(shared), seoapi.WithReserve(100, 0)}, "smaller than the client's limits, 100 an hour and 50 a second"},
		{"the shared limiter, given after", []seoapi.Option{seoapi.WithReserve(0, 60), seoapi.WithLimiter(shared)}, "smaller than the client's limits"},
		{"a Limiter not the built-in one", []seoapi.Option{seoapi.WithLimiter(&fleetLimiter{}), seoapi.WithReserve(10, 0)}, "use that limiter's own reserve (such as redislimit.WithReserve)"},
		{"a Limiter not the built-in one, given after", []seoapi.Option{seoapi.WithReserve(10, 0), seoapi.WithLimiter(&fleetLimiter{})}, "is not the built-in one"},
		{"the limiter off", []seoapi.Option{seoapi.WithReserve(10, 0), seoapi.WithoutRateLimit()}, "the client's limiter is off"},

		{"within the shared limiter", []seoapi.Option{seoapi.WithReserve(99, 49), seoapi.WithLimiter(shared)}, ""},
		{"within the own limits, given after", []seoapi.Option{seoapi.WithReserve(0, 60), seoapi.WithRateLimit(100, 100)}, ""},
		{"refused, then another limiter chosen", []seoapi.Option{seoapi.WithReserve(30, 0), seoapi.WithLimiter(&fleetLimiter{}), seoapi.WithLimiter(shared)}, ""},
		{"refused, then withdrawn", []seoapi.Option{seoapi.WithoutRateLimit(), seoapi.WithReserve(30, 0), seoapi.WithReserve(0, 0)}, ""},
		{"the default limits", []seoapi.Option{seoapi.WithReserve(1000, 10)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := seoapi.NewClient("http://127.0.0.1:1", testKey, tt.opts...)
			if tt.wantErr == "" {
				require.NoError(t, err)
				require.NotNil(t, c)
				return
			}
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "WithReserve(")
		})
	}
}

// TestReserveAgainstAStrictServer is issue 18's acceptance on the real
// clock against a fake enforcing 100 an hour and 50 a second: sharing
// NewLimiter(100, 50, 0), a batch client with WithReserve(30, 0) gets 70
// requests through and its 71st is refused, not sent; a service client
// without a reserve then gets its 30, never held back by the hour, and the
// server answers no 429.
func TestReserveAgainstAStrictServer(t *testing.T) {
	t.Parallel()
	fake := seoapitest.New()
	fake.SetLimits(seoapitest.Limits{PerHour: 100, PerSecond: 50})
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	key, _ := fake.IssueKey(seoapitest.PlanEnterprise)

	shared, err := seoapi.NewLimiter(100, 50, 0)
	require.NoError(t, err)
	hourly := &waitLevels{}
	// The per-second limit may hold requests back for about a second: a
	// max wait well above that, far below the hour.
	batch, err := seoapi.NewClient(srv.URL, key, seoapi.WithLimiter(shared), seoapi.WithReserve(30, 0), seoapi.WithMaxWait(30*time.Second))
	require.NoError(t, err)
	service, err := seoapi.NewClient(srv.URL, key, seoapi.WithLimiter(shared), seoapi.WithMaxWait(30*time.Second), seoapi.WithObserver(hourly))
	require.NoError(t, err)
	ctx := context.Background()

	for i := range 70 {
		_, _, err := batch.Workspaces.List(ctx, nil)
		require.NoError(t, err, "batch request %d", i+1)
	}
	_, _, err = batch.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited, "the 71st would leave fewer than 30 of the hour")
	var apiErr *seoapi.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Zero(t, apiErr.StatusCode, "refused before sending")
	assert.Greater(t, apiErr.RetryAfter, 30*time.Minute)
	assert.Contains(t, err.Error(), "keeping the reserve (WithReserve)")
	assert.Len(t, fake.Requests(), 70)

	for i := range 30 {
		_, _, err := service.Workspaces.List(ctx, nil)
		require.NoError(t, err, "service request %d", i+1)
	}
	assert.Zero(t, hourly.count(seoapi.WaitPerHour), "the service was never held back by the hour")
	_, _, err = service.Workspaces.List(ctx, nil)
	require.ErrorIs(t, err, seoapi.ErrRateLimited, "the hour is spent")
	assert.Len(t, fake.Requests(), 100)
	assert.Zero(t, fake.Throttled(), "the server refused nothing")
}

// waitLevels counts the limiter waits an observer is told of, by level.
type waitLevels struct {
	mu sync.Mutex
	n  map[seoapi.WaitLevel]int
}

func (o *waitLevels) Observe(ctx context.Context, e seoapi.Event) context.Context {
	if e.Type == seoapi.EventLimiterWait {
		o.mu.Lock()
		defer o.mu.Unlock()
		if o.n == nil {
			o.n = map[seoapi.WaitLevel]int{}
		}
		o.n[e.Level]++
	}
	return ctx
}

func (o *waitLevels) count(level seoapi.WaitLevel) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n[level]
}

// TestBudgetIsLessTheReserve: a client sharing NewLimiter(100, 10, 0)
// with WithReserve(90, 8) may send 10 requests an hour and 2 a second, and
// its Budget says so (so bulk's ETA counts with 10 an hour); the client
// without a reserve sees the whole limits, and both the same use.
func TestBudgetIsLessTheReserve(t *testing.T) {
	t.Parallel()
	shared, err := seoapi.NewLimiter(100, 10, 0)
	require.NoError(t, err)
	rec := newRecorder(t, respond(200, `[]`))
	batch, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(shared), seoapi.WithReserve(90, 8))
	require.NoError(t, err)
	service, err := seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithLimiter(shared))
	require.NoError(t, err)
	_, _, err = batch.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	tests := []struct {
		name   string
		client *seoapi.Client
		want   seoapi.Budget
	}{
		{"with the reserve", batch, seoapi.Budget{PerHour: 10, PerSecond: 2, UsedHour: 1, UsedSecond: 1}},
		{"without", service, seoapi.Budget{PerHour: 100, PerSecond: 10, UsedHour: 1, UsedSecond: 1}},
	}
	for _, tt := range tests {
		b, err := tt.client.Budget(context.Background())
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, b, tt.name)
	}
}
