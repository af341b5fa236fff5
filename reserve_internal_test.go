package seoapi

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simRequest is one request of a simulated run of the windows: when it
// was released and when the limiter heard of its response (never: -1).
type simRequest struct {
	release, answered time.Duration
}

// frees is when the request stops counting in the rolling second, as the
// limiter counts it: a second (and the guard) after its answer, or after
// release + maxTransit when that is sooner or it was never answered.
func (r simRequest) frees() time.Duration {
	last := r.release + maxTransit
	if r.answered >= 0 {
		last = min(last, r.answered)
	}
	return last + time.Second + secondGuard
}

// freeAfter returns how many slots of each window are free once a request
// released at t has taken its own, counted from scratch over every earlier
// request.
func freeAfter(sent []simRequest, t time.Duration, perHour, perSecond int) (hour, second int) {
	inHour, inSecond := 1, 1
	for _, r := range sent {
		if r.release+time.Hour+hourGuard > t {
			inHour++
		}
		if r.frees() > t {
			inSecond++
		}
	}
	return perHour - inHour, perSecond - inSecond
}

// TestReserveIsExact drives the built-in limiter shared by clients with
// and without a reserve on a simulated clock (a wait moves the clock on),
// and checks every release against the windows counted from scratch: a
// request with a reserve went only when both windows still held its
// reserve free after it, and at the earliest time they did (or at once,
// or behind the release before it); one without a reserve likewise with
// none.
func TestReserveIsExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		perHour, perSecond int
		keep               windowReserve
	}{
		{"the hour", 100, 50, windowReserve{perHour: 30}},
		{"the second", 1000, 10, windowReserve{perSecond: 4}},
		{"both", 40, 6, windowReserve{perHour: 10, perSecond: 2}},
		{"all but one", 12, 4, windowReserve{perHour: 11, perSecond: 3}},
		{"none", 30, 5, windowReserve{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(1, uint64(tt.perHour*1000+tt.perSecond)))
			clk := newClock()
			l := newWindowLimiter(tt.perHour, tt.perSecond, 0, clk.now)
			l.sleep = func(_ context.Context, d time.Duration) error {
				clk.advance(max(d, 0))
				return nil
			}
			type pending struct {
				idx int
				at  time.Duration
				t   slotTicket
			}
			var (
				sent    []simRequest
				waiting []pending
			)
			for range 4 * tt.perHour {
				clk.advance([]time.Duration{0, 0, time.Millisecond, 40 * time.Millisecond, 300 * time.Millisecond, 20 * time.Second}[rng.IntN(6)])
				// Responses due by now reach the limiter, in order.
				now := clk.now().Sub(l.origin)
				rest := waiting[:0]
				for _, p := range waiting {
					if p.at <= now {
						l.done(p.t, true)
						sent[p.idx].answered = now
						continue
					}
					rest = append(rest, p)
				}
				waiting = rest

				keep := windowReserve{}
				if rng.IntN(2) == 0 {
					keep = tt.keep
				}
				at := clk.now().Sub(l.origin)
				ticket, err := builtinLimiter{windowLimiter: l, reserve: keep}.acquire(context.Background(), 100*time.Hour, nil)
				require.NoError(t, err)
				release := clk.now().Sub(l.origin)

				hourFree, secondFree := freeAfter(sent, release, tt.perHour, tt.perSecond)
				require.GreaterOrEqual(t, hourFree, keep.perHour, "request %d: the hour's reserve", len(sent))
				require.GreaterOrEqual(t, secondFree, keep.perSecond, "request %d: the second's reserve", len(sent))
				if release > at && (len(sent) == 0 || release > sent[len(sent)-1].release) {
					h, s := freeAfter(sent, release-1, tt.perHour, tt.perSecond)
					require.True(t, h < keep.perHour || s < keep.perSecond, "request %d waited %s longer than it had to", len(sent), release-at)
				}

				sent = append(sent, simRequest{release: release, answered: -1})
				if transit := []time.Duration{-1, 0, 5 * time.Millisecond, 700 * time.Millisecond, 2 * time.Second}[rng.IntN(5)]; transit >= 0 {
					waiting = append(waiting, pending{idx: len(sent) - 1, at: release + transit, t: ticket})
				}
			}
		})
	}
}

// TestReserveLeavesItsShareToOthers is issue 18's acceptance, on the
// limiter's own clock through two real clients sharing NewLimiter(100, 50,
// 0): the one with WithReserve(30, 0) gets 70 requests through, its 71st
// is refused (a short max wait) or waits (a long one) without taking a
// slot, and the other still gets its 30 at once.
func TestReserveLeavesItsShareToOthers(t *testing.T) {
	t.Parallel()
	for _, waits := range []bool{false, true} {
		name := "the 71st is refused"
		if waits {
			name = "the 71st waits"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var served atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				served.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`[]`))
			}))
			t.Cleanup(srv.Close)

			clk := newClock()
			shared := newWindowLimiter(100, 50, 0, clk.now)
			slept := make(chan time.Duration, 1)
			shared.sleep = func(ctx context.Context, d time.Duration) error {
				if !waits {
					return errors.New("no request may wait")
				}
				select {
				case slept <- d:
				default:
					return errors.New("a second wait: only the 71st may wait")
				}
				<-ctx.Done()
				return ctx.Err()
			}
			batchWait := time.Minute
			if waits {
				batchWait = 2 * time.Hour
			}
			batch, err := NewClient(srv.URL, "sk_test_batch", WithReserve(30, 0), WithLimiter(shared), WithMaxWait(batchWait))
			require.NoError(t, err)
			service, err := NewClient(srv.URL, "sk_test_service", WithLimiter(shared), WithMaxWait(time.Minute))
			require.NoError(t, err)
			ctx := context.Background()

			for i := range 70 {
				if i == 50 {
					clk.advance(2 * time.Second) // the first 50 leave the second
				}
				_, _, err := batch.Workspaces.List(ctx, nil)
				require.NoError(t, err, "batch request %d", i+1)
			}
			require.EqualValues(t, 70, served.Load())

			batchCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			batchErr := make(chan error, 1)
			if waits {
				go func() {
					_, _, err := batch.Workspaces.List(batchCtx, nil)
					batchErr <- err
				}()
				// Until the first of the 70 leaves the hour.
				assert.Equal(t, time.Hour, <-slept, "the 71st waits for the hour to keep 30 free")
			} else {
				_, _, err := batch.Workspaces.List(ctx, nil)
				require.ErrorIs(t, err, ErrRateLimited, "the 71st would leave fewer than 30 of the hour")
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, time.Hour, apiErr.RetryAfter)
				assert.Contains(t, apiErr.Message, "hourly limit keeping the reserve (WithReserve)")
				assert.Zero(t, apiErr.StatusCode, "not sent")
			}

			for i := range 30 {
				_, _, err := service.Workspaces.List(ctx, nil)
				require.NoError(t, err, "service request %d goes at once", i+1)
			}
			require.EqualValues(t, 100, served.Load())
			_, _, err = service.Workspaces.List(ctx, nil)
			require.ErrorIs(t, err, ErrRateLimited, "the hour is full")

			if waits {
				cancel()
				require.ErrorIs(t, <-batchErr, context.Canceled)
			}
			assert.EqualValues(t, 100, served.Load())
			b, err := shared.Budget(ctx)
			require.NoError(t, err)
			assert.Equal(t, 100, b.UsedHour, "the waiting 71st took no slot")
		})
	}
}

// TestNewAttemptLimiterWithReserve: a reserve goes with the client's own
// or the shared built-in limiter.
func TestNewAttemptLimiterWithReserve(t *testing.T) {
	t.Parallel()
	shared := newWindowLimiter(100, 10, 0, time.Now)
	keep := windowReserve{perHour: 5, perSecond: 1}

	got, ok := newAttemptLimiter(rateLimitConfig{limiter: shared, reserve: keep}, time.Now).(builtinLimiter)
	require.True(t, ok)
	assert.Same(t, shared, got.windowLimiter, "the same windows, shared")
	assert.Equal(t, keep, got.reserve)

	cfg := defaultRateLimitConfig()
	cfg.reserve = keep
	own, ok := newAttemptLimiter(cfg, time.Now).(builtinLimiter)
	require.True(t, ok)
	assert.Equal(t, DefaultRequestsPerHour, own.hour.size)
	assert.Equal(t, keep, own.reserve)
}

// TestReserveWaitKeepsALaterHold: a request its reserve held back keeps a
// hold the server asked for while it waited, instead of going as soon as
// its own wait ends (here the hold is longer than the max wait: refused).
func TestReserveWaitKeepsALaterHold(t *testing.T) {
	t.Parallel()
	clk := newClock()
	l := newWindowLimiter(1000, 2, 0, clk.now)
	_, err := builtin(l).acquire(context.Background(), time.Minute, nil) // never answered
	require.NoError(t, err)
	var slept []time.Duration
	l.sleep = func(_ context.Context, d time.Duration) error {
		slept = append(slept, d)
		clk.advance(d)
		// As the reserve's wait ends, a response says nothing remains for
		// 30 minutes.
		l.Hold(context.Background(), 30*time.Minute)
		return nil
	}
	var rec waitRecords
	_, err = builtinLimiter{windowLimiter: l, reserve: windowReserve{perSecond: 1}}.acquire(context.Background(), time.Minute, &rec)
	require.ErrorIs(t, err, ErrRateLimited)
	assert.Contains(t, err.Error(), "server rate limit")
	wait := secondSpan
	assert.Equal(t, []time.Duration{wait}, slept, "the reserve's wait, then the hold refused")
	b, _ := l.Budget(context.Background())
	assert.Equal(t, 1, b.UsedHour, "no slot taken")
	require.Len(t, rec, 1)
	assert.Equal(t, WaitPerSecond, rec[0].level)
	assert.Equal(t, wait, rec[0].d)
}

// TestWithReserve: a limiter with another reserve shares the windows and
// the server's hold of the one it came from, keeps its own reserve, and
// reports the limits less it; one that cannot keep a reserve is refused.
func TestWithReserve(t *testing.T) {
	t.Parallel()
	clk := newClock()
	parent := builtin(onClock(100, 10, 0, clk))
	view, err := withReserve(parent, 90, 8)
	require.NoError(t, err)
	ctx := context.Background()
	// A max wait of 0 turns every wait into a refusal.
	require.NoError(t, turn(parent, ctx, 0, nil))
	require.NoError(t, turn(view, ctx, 0, nil))
	b, err := view.Budget(ctx)
	require.NoError(t, err)
	assert.Equal(t, Budget{PerHour: 10, PerSecond: 2, UsedHour: 2, UsedSecond: 2}, b, "one count, the limits less the reserve")
	_, err = view.acquire(ctx, 0, nil)
	require.ErrorIs(t, err, ErrRateLimited, "the view leaves 8 of the second free")
	assert.Contains(t, err.Error(), "keeping the reserve (WithReserve)")
	require.NoError(t, turn(parent, ctx, 0, nil), "the parent may use the reserve")

	parent.feedback(ctx, clk.now(), time.Minute)
	_, err = view.acquire(ctx, 0, nil)
	require.ErrorIs(t, err, ErrRateLimited)
	assert.Contains(t, err.Error(), "server rate limit", "the view keeps the parent's hold")
	b, err = parent.Budget(ctx)
	require.NoError(t, err)
	assert.Equal(t, 100, b.PerHour, "the parent keeps its own reserve")

	refused := []struct {
		name               string
		l                  attemptLimiter
		perHour, perSecond int
		want               string
	}{
		{"the whole hour", parent, 100, 0, "smaller than the client's limits, 100 an hour and 10 a second"},
		{"the whole second", parent, 0, 10, "smaller than the client's limits"},
		{"negative", parent, -1, 0, "at least 0"},
		{"off", newAttemptLimiter(rateLimitConfig{off: true}, clk.now), 1, 0, "is off or is not the built-in one"},
		{"another Limiter", newAttemptLimiter(rateLimitConfig{limiter: &countingLimiter{}}, clk.now), 1, 0, "is off or is not the built-in one"},
	}
	for _, tt := range refused {
		_, err := withReserve(tt.l, tt.perHour, tt.perSecond)
		require.ErrorIs(t, err, ErrInvalidArgument, tt.name)
		assert.Contains(t, err.Error(), tt.want, tt.name)
	}
}
