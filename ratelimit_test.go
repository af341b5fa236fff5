package seoapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/internal/fakeapi"
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
	fake := fakeapi.New()
	fake.SetLimits(fakeapi.Limits{})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, ws := fake.IssueKey(fakeapi.PlanEnterprise)
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
	fake := fakeapi.New()
	fake.SetLimits(fakeapi.Limits{PerSecond: perSecond})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, ws := fake.IssueKey(fakeapi.PlanEnterprise)
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

// BenchmarkRateLimitedThroughput measures the rate the built-in limiter
// achieves for 8 goroutines sharing a Client, against a fake API enforcing
// the same per-second limit with a strict rolling window. It reports the
// achieved share of the limit (goal: 0.95 or more) and the 429s (goal: 0).
//
//	go test -run '^$' -bench RateLimitedThroughput -benchtime 2000x
func BenchmarkRateLimitedThroughput(b *testing.B) {
	const perSecond = seoapi.DefaultRequestsPerSecond
	fake := fakeapi.New()
	fake.SetLimits(fakeapi.Limits{PerSecond: perSecond})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	key, ws := fake.IssueKey(fakeapi.PlanEnterprise)
	c, err := seoapi.NewClient(srv.URL, key, seoapi.WithRateLimit(1_000_000, perSecond), seoapi.WithMaxRetries(0))
	if err != nil {
		b.Fatal(err)
	}
	// One call to set up the connection and the limiter's first token.
	if _, _, err := c.Projects.List(context.Background(), ws, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	for range 8 {
		wg.Go(func() {
			for range work {
				if _, _, err := c.Projects.List(context.Background(), ws, nil); err != nil {
					b.Error(err)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	achieved := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(achieved, "req/s")
	b.ReportMetric(achieved/perSecond, "share-of-limit")
	b.ReportMetric(float64(fake.Throttled()), "429s")
}
