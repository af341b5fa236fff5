package redislimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
)

// TestBudgetReadsTheFleet: Budget counts the slots of every limiter
// sharing the name (those reserved for a later moment too), gives the
// limits less the reserve and the end of the server's hold, in one round
// trip to Redis.
func TestBudgetReadsTheFleet(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	var sent atomic.Int32
	rdb.AddHook(afterHook(func(...redis.Cmder) { sent.Add(1) }))
	ctx := context.Background()
	a := newTestLimiter(t, rdb, "budget", WithLimits(100, 50))
	b := newTestLimiter(t, rdb, "budget", WithLimits(100, 50), WithReserve(10, 5))

	if err := rdb.Ping(ctx).Err(); err != nil { // a connection is open: nothing is counted for it
		t.Fatal(err)
	}
	before := sent.Load()
	got, err := a.Budget(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (seoapi.Budget{PerHour: 100, PerSecond: 50}); got != want {
		t.Errorf("fresh Budget = %+v, want %+v", got, want)
	}
	if n := sent.Load() - before; n != 1 {
		t.Errorf("Budget sent %d commands, want 1", n)
	}

	// A hold of 10 s puts the slots reserved next 10 s ahead: they count
	// in both windows, whatever the machine's load.
	const hold = 10 * time.Second
	start := time.Now()
	a.Hold(ctx, hold)
	for i := range 30 {
		l := []*Limiter{a, b}[i%2]
		if r, err := l.reserveSlot(ctx, fmt.Sprint("m", i), time.Minute, 0); err != nil || !r.reserved {
			t.Fatalf("reserve %d = %+v, %v", i, r, err)
		}
	}
	got, err = b.Budget(ctx)
	end := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if got.PerHour != 90 || got.PerSecond != 45 || got.UsedHour != 30 || got.UsedSecond != 30 {
		t.Errorf("Budget = %+v, want 90 an hour and 45 a second (the limits less the reserve), 30 used of each", got)
	}
	if lo, hi := start.Add(hold-time.Millisecond), end.Add(hold+time.Millisecond); got.HoldUntil.Before(lo) || got.HoldUntil.After(hi) {
		t.Errorf("HoldUntil %s, want between %s and %s", got.HoldUntil, lo, hi)
	}
}

// checkBudget fails t unless l's Budget is want.
func checkBudget(t *testing.T, l *Limiter, want seoapi.Budget) {
	t.Helper()
	if got, err := l.Budget(context.Background()); err != nil || got != want {
		t.Errorf("Budget = %+v, %v; want %+v", got, err, want)
	}
}

// budgetFallback is a fallback that tells a budget of its own.
type budgetFallback struct{ countingLimiter }

func (*budgetFallback) Budget(context.Context) (seoapi.Budget, error) {
	return seoapi.Budget{PerHour: 25, PerSecond: 5, UsedHour: 1}, nil
}

// TestBudgetWhileRedisIsDown: the fallback's budget, or without one an
// *UnavailableError.
func TestBudgetWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		fallback seoapi.Limiter // nil: none
		want     seoapi.Budget
	}{
		{"no fallback", nil, seoapi.Budget{}},
		{"a fallback", &budgetFallback{}, seoapi.Budget{PerHour: 25, PerSecond: 5, UsedHour: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t)
			opts := []Option{WithLogger(slog.New(&records{}))}
			if tc.fallback != nil {
				opts = append(opts, WithFallback(tc.fallback))
			}
			lim := newTestLimiter(t, srv.Client(), "budget-down", opts...)
			srv.Stop()
			got, err := lim.Budget(context.Background())
			if tc.want == (seoapi.Budget{}) {
				var unavailable *UnavailableError
				if !errors.As(err, &unavailable) || !errors.Is(err, seoapi.ErrConnection) {
					t.Fatalf("Budget = %+v, %v; want an *UnavailableError", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Budget = %+v, %v; want the fallback's %+v", got, err, tc.want)
			}
		})
	}
}

// TestBudgetAcrossProcesses: one process makes 30 calls through a Client;
// another, sharing the name, reads 30 used of 100.
func TestBudgetAcrossProcesses(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	cfg := childConfig{
		Redis: srv.addr, BaseURL: api.baseURL, Key: api.key, Name: "budget-fleet",
		PerHour: 100, PerSecond: 50, Workers: 3, Calls: 10,
	}
	calls := runFleet(t, 1, cfg)[0]
	cfg.Workers, cfg.Calls = 0, 0
	reader := runFleet(t, 1, cfg)[0]
	for who, r := range map[string]childResult{"the process that called": calls, "another process": reader} {
		if b := r.Budget; b.PerHour != 100 || b.PerSecond != 50 || b.UsedHour != 30 || !b.HoldUntil.IsZero() {
			t.Errorf("%s: Budget = %+v, want 30 used of 100 an hour, 50 a second, no hold", who, b)
		}
	}
	if calls.OK != 30 || len(api.requests()) != 30 {
		t.Errorf("%d calls succeeded and %d requests reached the API, want 30 and 30", calls.OK, len(api.requests()))
	}
}
