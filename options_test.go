package seoapi_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/seoapi/seoapi-go/seoapitest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestViewWaitsWithItsOwnMaxWait: a view with a short max wait is refused
// at once (ErrRateLimited, nothing sent, RetryAfter set) where its parent
// waits for the same slot of the shared limiter.
func TestViewWaitsWithItsOwnMaxWait(t *testing.T) {
	t.Parallel()
	fake := seoapitest.NewServer(t)
	c, err := seoapi.NewClient(fake.URL(), fake.Key(), seoapi.WithRateLimit(1000, 1))
	require.NoError(t, err)
	view, err := c.With(seoapi.WithMaxWait(10 * time.Millisecond))
	require.NoError(t, err)
	ctx := context.Background()
	_, _, err = c.Workspaces.List(ctx, nil) // takes the second's one slot
	require.NoError(t, err)

	_, resp, err := view.Workspaces.List(ctx, nil)
	ae := requireOneKind(t, err, seoapi.ErrRateLimited)
	assert.Nil(t, resp)
	assert.Zero(t, ae.Attempts)
	assert.Greater(t, ae.RetryAfter, 10*time.Millisecond)
	assert.Len(t, fake.Requests(), 1, "the view sent nothing")

	_, _, err = c.Workspaces.List(ctx, nil)
	require.NoError(t, err, "the parent waits for the slot")
	assert.Len(t, fake.Requests(), 2)
}

// TestViewsShareTheLimit: a client and its views stay together within the
// limits of a strict rolling-window server (no 429), and Budget reports one
// count for all of them.
func TestViewsShareTheLimit(t *testing.T) {
	t.Parallel()
	fake := seoapitest.NewServer(t)
	fake.SetLimits(seoapitest.Limits{PerSecond: 4, PerHour: 1000})
	c, err := seoapi.NewClient(fake.URL(), fake.Key(), seoapi.WithRateLimit(1000, 4), seoapi.WithMaxRetries(0))
	require.NoError(t, err)
	v1, err := c.With(seoapi.WithUserAgent("batch"))
	require.NoError(t, err)
	v2, err := v1.With(seoapi.WithHeader("X-Job-Id", "j1"))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 9)
	for _, client := range []*seoapi.Client{c, v1, v2} {
		for range 3 {
			wg.Go(func() {
				_, _, err := client.Workspaces.List(context.Background(), nil)
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	for _, r := range fake.Requests() {
		assert.NotEqual(t, http.StatusTooManyRequests, r.Status)
	}
	for _, client := range []*seoapi.Client{c, v1, v2} {
		b, err := client.Budget(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 9, b.UsedHour, "one count for the client and its views")
	}
}

// serviceCall marks the context of a service's call for limiterWaits.
type serviceCall struct{}

// limiterWaits counts the limiter waits of the calls whose context is
// marked serviceCall.
type limiterWaits struct{ n atomic.Int32 }

func (w *limiterWaits) Observe(ctx context.Context, e seoapi.Event) context.Context {
	if e.Type == seoapi.EventLimiterWait && ctx.Value(serviceCall{}) != nil {
		w.n.Add(1)
	}
	return ctx
}

// TestReserveViewLeavesTheServiceItsSlots: a batch view with WithReserve
// saturates the shared per-second window, yet leaves the slots it reserves
// to its parent: four service requests beside it never wait for the limiter.
func TestReserveViewLeavesTheServiceItsSlots(t *testing.T) {
	t.Parallel()
	fake := seoapitest.NewServer(t)
	waits := &limiterWaits{}
	service, err := seoapi.NewClient(fake.URL(), fake.Key(), seoapi.WithRateLimit(10000, 10), seoapi.WithObserver(waits))
	require.NoError(t, err)
	batch, err := service.With(seoapi.WithReserve(0, 4))
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	var sent atomic.Int32
	started := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if _, _, err := batch.Workspaces.List(ctx, nil); err == nil && sent.Add(1) == 6 {
					close(started) // the batch holds all it may of the second
				}
			}
		})
	}
	<-started
	serviceCtx := context.WithValue(context.Background(), serviceCall{}, true)
	for range 4 {
		_, _, err := service.Workspaces.List(serviceCtx, nil)
		require.NoError(t, err)
	}
	stop()
	wg.Wait()
	assert.Zero(t, waits.n.Load(), "a service request waited for the limiter")
	assert.GreaterOrEqual(t, sent.Load(), int32(6))
}

// TestWithHeader: a view's headers arrive on its requests only, and add up
// along a chain of views.
func TestWithHeader(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	c := newClient(t, rec.srv.URL)
	job, err := c.With(seoapi.WithHeader("x-job-id", "job-7"))
	require.NoError(t, err)
	traced, err := job.With(seoapi.WithHeader("X-Trace-Tag", "nightly"))
	require.NoError(t, err)
	for _, client := range []*seoapi.Client{c, job, traced} {
		_, _, err := client.Workspaces.List(context.Background(), nil)
		require.NoError(t, err)
	}
	reqs := rec.requests()
	require.Len(t, reqs, 3)
	assert.Empty(t, reqs[0].Header.Values("X-Job-Id"))
	assert.Equal(t, []string{"job-7"}, reqs[1].Header.Values("X-Job-Id"))
	assert.Empty(t, reqs[1].Header.Values("X-Trace-Tag"))
	assert.Equal(t, []string{"job-7"}, reqs[2].Header.Values("X-Job-Id"))
	assert.Equal(t, []string{"nightly"}, reqs[2].Header.Values("X-Trace-Tag"))
	for _, r := range reqs {
		assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	}
}

// TestWithRefuses: options that would replace what a view shares, and
// invalid values, fail With with ErrInvalidArgument and a nil view;
// nothing is sent. A refused header fails NewClient too.
func TestWithRefuses(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	c := newClient(t, rec.srv.URL)
	lim, err := seoapi.NewLimiter(100, 10, 0)
	require.NoError(t, err)
	tests := map[string]seoapi.Option{
		"WithHTTPClient":              seoapi.WithHTTPClient(http.DefaultClient),
		"WithLimiter":                 seoapi.WithLimiter(lim),
		"WithRateLimit":               seoapi.WithRateLimit(100, 10),
		"WithoutRateLimit":            seoapi.WithoutRateLimit(),
		"WithInsecureHTTP":            seoapi.WithInsecureHTTP(),
		"WithReserve without limiter": seoapi.WithReserve(1, 1), // c has WithoutRateLimit
		"negative WithMaxWait":        seoapi.WithMaxWait(-time.Second),
		"negative WithAttemptTimeout": seoapi.WithAttemptTimeout(-time.Second),
		"negative WithMaxRetries":     seoapi.WithMaxRetries(-1),
		"Authorization":               seoapi.WithHeader("Authorization", "Bearer other"),
		"Content-Type":                seoapi.WithHeader("content-type", "text/plain"),
		"Content-Length":              seoapi.WithHeader("Content-Length", "3"),
		"Host":                        seoapi.WithHeader("Host", "evil.example"),
		"Transfer-Encoding":           seoapi.WithHeader("Transfer-Encoding", "chunked"),
		"Connection":                  seoapi.WithHeader("Connection", "close"),
		"Keep-Alive":                  seoapi.WithHeader("Keep-Alive", "timeout=5"),
		"Upgrade":                     seoapi.WithHeader("Upgrade", "h2c"),
		"invalid name":                seoapi.WithHeader("X Job", "1"),
		"empty name":                  seoapi.WithHeader("", "1"),
		"CR LF in value":              seoapi.WithHeader("X-Job-Id", "1\r\nX-Evil: 1"),
		"NUL in value":                seoapi.WithHeader("X-Job-Id", "1\x00"),
		"control character in value":  seoapi.WithHeader("X-Job-Id", "job\x01id"),
		"DEL in value":                seoapi.WithHeader("X-Job-Id", "job\x7f"),
	}
	for name, opt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := c.With(seoapi.WithMaxRetries(1), opt)
			require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
			assert.Nil(t, v)
		})
	}
	_, err = seoapi.NewClient(rec.srv.URL, testKey, seoapi.WithHeader("Authorization", "Bearer other"))
	require.ErrorIs(t, err, seoapi.ErrInvalidArgument)
	assert.Empty(t, rec.requests())
}

// TestWithAttemptTimeout: an attempt that runs out of its own time is a
// connection failure, not the caller's deadline: a read is retried, and a
// write the server received once is not, and may have taken effect.
func TestWithAttemptTimeout(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					<-r.Context().Done() // held until the client's attempt times out and hangs up
					return
				}
				respond(200, `[]`)(w, r)
			})
			c := newClient(t, rec.srv.URL)
			view, err := c.With(seoapi.WithAttemptTimeout(300 * time.Millisecond))
			require.NoError(t, err)
			req, err := view.NewRequest(context.Background(), method, "api/workspaces", map[string]string{"name": "w"})
			require.NoError(t, err)
			resp, err := view.Do(req, nil)
			if method == http.MethodGet {
				require.NoError(t, err, "a timed-out read is retried")
				assert.Equal(t, 2, resp.Attempts)
				return
			}
			requireOneKind(t, err, seoapi.ErrConnection)
			assert.ErrorIs(t, err, seoapi.ErrOutcomeUnknown)
			assert.NotErrorIs(t, err, context.DeadlineExceeded)
			assert.Len(t, rec.requests(), 1, "the write was sent once")
		})
	}
}

// TestViewsUnderConcurrency: 32 goroutines make views of one client and
// call through them; each request carries its own view's header.
func TestViewsUnderConcurrency(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Echo", r.Header.Get("X-Worker"))
		respond(200, `[]`)(w, r)
	})
	c := newClient(t, rec.srv.URL)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			id := strconv.Itoa(i)
			v, err := c.With(seoapi.WithHeader("X-Worker", id), seoapi.WithMaxRetries(1), seoapi.WithObserver(&limiterWaits{}))
			if !assert.NoError(t, err) {
				return
			}
			_, resp, err := v.Workspaces.List(context.Background(), nil)
			if assert.NoError(t, err) {
				assert.Equal(t, id, resp.Header.Get("X-Echo"))
			}
		})
	}
	wg.Wait()
	assert.Len(t, rec.requests(), 32)
}

// TestWithAllocations: a view is cheap enough to make for one call.
func TestWithAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocations")
	}
	c := newClient(t, "https://api.example.com")
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.With(seoapi.WithMaxWait(2*time.Second), seoapi.WithHeader("X-Job-Id", "j")); err != nil {
			t.Fatal(err)
		}
	})
	assert.LessOrEqual(t, allocs, 30.0)
}

// BenchmarkClientWith makes a view with a max wait and a header.
//
//	go test -run '^$' -bench ClientWith -benchmem .
func BenchmarkClientWith(b *testing.B) {
	c, err := seoapi.NewClient("https://api.example.com", testKey)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.With(seoapi.WithMaxWait(2*time.Second), seoapi.WithHeader("X-Job-Id", "j")); err != nil {
			b.Fatal(err)
		}
	}
}

// TestViewLogger: WithLogger on a view replaces its client's logger for
// the view; the client keeps its own, and its other observers are told
// about the view's calls too.
func TestViewLogger(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(200, `[]`))
	var clientLog, viewLog bytes.Buffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	events := &eventLog{}
	c := newClient(t, rec.srv.URL, seoapi.WithLogger(slog.New(slog.NewTextHandler(&clientLog, debug))), seoapi.WithObserver(events))
	view, err := c.With(seoapi.WithLogger(slog.New(slog.NewTextHandler(&viewLog, debug))))
	require.NoError(t, err)

	_, _, err = view.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, clientLog.String(), "the view's call is not logged to the client's logger")
	assert.Contains(t, viewLog.String(), "seoapi: attempt")
	assert.Contains(t, events.types(), "call_end", "the client's observer is told about the view's call")

	viewLog.Reset()
	_, _, err = c.Workspaces.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Contains(t, clientLog.String(), "seoapi: attempt")
	assert.Empty(t, viewLog.String(), "the client's call is not logged to the view's logger")
}
