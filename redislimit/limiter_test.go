package redislimit

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
)

func TestNewRejectsInvalidArguments(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never contacted
	t.Cleanup(func() { rdb.Close() })
	secret := "sk_" + strings.Repeat("3f9a", 12)
	cases := []struct {
		name   string
		rdb    redis.UniversalClient
		budget string
		opts   []Option
		want   string
	}{
		{"nil client", nil, "prod", nil, "nil Redis client"},
		{"empty name", rdb, "", nil, "name is empty"},
		{"long name", rdb, strings.Repeat("a", maxNameLen+1), nil, "longer than 64"},
		{"space", rdb, "my budget", nil, "printable ASCII"},
		{"brace", rdb, "a{b}", nil, "braces"},
		{"control", rdb, "a\nb", nil, "printable ASCII"},
		{"non-ASCII", rdb, "bütçe", nil, "printable ASCII"},
		{"looks like a key", rdb, secret, nil, "looks like an API key"},
		{"zero per hour", rdb, "prod", []Option{WithLimits(0, 50)}, "WithLimits(0, 50)"},
		{"negative per second", rdb, "prod", []Option{WithLimits(100, -1)}, "WithLimits(100, -1)"},
		{"negative max wait", rdb, "prod", []Option{WithMaxWait(-time.Second)}, "WithMaxWait(-1s)"},
		{"nil fallback", rdb, "prod", []Option{WithFallback(nil)}, "nil Limiter"},
		{"nil logger", rdb, "prod", []Option{WithLogger(nil)}, "nil Logger"},
		{"negative reserve", rdb, "prod", []Option{WithReserve(-1, 0)}, "WithReserve(-1, 0): a reserve cannot be negative"},
		{"reserve of the whole hour", rdb, "prod", []Option{WithLimits(100, 50), WithReserve(100, 0)}, "WithReserve(100, 0): a reserve must be smaller than the limits (100 an hour, 50 a second)"},
		{"reserve over the hour", rdb, "prod", []Option{WithLimits(100, 50), WithReserve(101, 0)}, "smaller than the limits"},
		{"reserve of the whole second, limits after", rdb, "prod", []Option{WithReserve(0, 50), WithLimits(100, 50)}, "WithReserve(0, 50): a reserve must be smaller"},
		{"reserve over the default hour", rdb, "prod", []Option{WithReserve(seoapi.DefaultRequestsPerHour, 0)}, "(10000 an hour, 50 a second)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lim, err := New(tc.rdb, tc.budget, tc.opts...)
			if !errors.Is(err, seoapi.ErrInvalidArgument) || lim != nil {
				t.Fatalf("New = %v, %v; want nil and ErrInvalidArgument", lim, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q echoes a name that looks like a key", err)
			}
		})
	}
}

func TestNewAcceptsNames(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never contacted
	t.Cleanup(func() { rdb.Close() })
	for _, name := range []string{"a", "crawler-prod", "team/eu-west:key-2", strings.Repeat("x", maxNameLen), "abcdefghijklmnopqrstuvwxyzabcdef", "build-20260101-20260202-2026"} {
		lim, err := New(rdb, name)
		if err != nil {
			t.Errorf("New(%q): %v", name, err)
			continue
		}
		if want := "seoapi:{" + name + "}:w"; lim.keys[0] != want {
			t.Errorf("New(%q) window key %q, want %q", name, lim.keys[0], want)
		}
	}
}

// newTestLimiter returns a Limiter that asks Redis again at once after a
// failure and takes every outage for a new one, so that tests need not
// wait for probeEvery and rejoinOutages.
func newTestLimiter(t *testing.T, rdb redis.UniversalClient, name string, opts ...Option) *Limiter {
	t.Helper()
	lim, err := New(rdb, name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	lim.health.probeEvery = 0
	lim.health.rejoin = 0
	return lim
}

// scores returns the reserved slots of a budget, oldest first.
func scores(t *testing.T, rdb redis.UniversalClient, name string) []time.Time {
	t.Helper()
	zs, err := rdb.ZRangeWithScores(context.Background(), "seoapi:{"+name+"}:w", 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]time.Time, len(zs))
	for i, z := range zs {
		out[i] = time.UnixMicro(int64(z.Score))
	}
	return out
}

// checkWindows fails t when any window of span holds more than limit slots.
func checkWindows(t *testing.T, slots []time.Time, span time.Duration, limit int) {
	t.Helper()
	for i := limit; i < len(slots); i++ {
		if gap := slots[i].Sub(slots[i-limit]); gap < span {
			t.Errorf("slots %d and %d are %s apart: %d slots within %s", i-limit, i, gap, limit+1, span)
		}
	}
}

func TestStrictWindowsAcrossLimiters(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	const perSecond, limiters, workers, calls = 5, 3, 4, 2 // 24 requests: over four seconds
	rdb := srv.Client()
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range limiters {
		lim := newTestLimiter(t, rdb, "strict", WithLimits(1000, perSecond))
		for range workers {
			wg.Go(func() {
				for range calls {
					if err := acquire(context.Background(), lim); err != nil {
						t.Error(err)
						failed.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	slots := scores(t, rdb, "strict")
	if want := limiters*workers*calls - int(failed.Load()); len(slots) != want {
		t.Fatalf("%d slots reserved, want %d", len(slots), want)
	}
	// Each request is answered at once: it counts a second and the guard.
	checkWindows(t, slots, time.Second+answerGuard, perSecond)
	checkWindows(t, slots, (time.Second+answerGuard)/(2*perSecond), 1) // spaced
	if spread := slots[len(slots)-1].Sub(slots[0]); spread < 4*(time.Second+answerGuard) {
		t.Errorf("24 slots at 5 a second spread over %s, want at least 4 windows", spread)
	}
}

func TestHourlyBudgetRefusesAtOnce(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	a := newTestLimiter(t, rdb, "hourly", WithLimits(20, 1000))
	b := newTestLimiter(t, rdb, "hourly", WithLimits(20, 1000))
	var ok, refused int
	for i := range 30 {
		lim := []*Limiter{a, b}[i%2]
		err := acquire(context.Background(), lim)
		var apiErr *seoapi.APIError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &apiErr) && errors.Is(err, seoapi.ErrRateLimited) && apiErr.StatusCode == 0:
			refused++
			if apiErr.RetryAfter < 59*time.Minute || apiErr.RetryAfter > time.Hour+hourGuard {
				t.Errorf("RetryAfter %s, want most of an hour", apiErr.RetryAfter)
			}
			if !strings.Contains(err.Error(), "fleet hourly limit") {
				t.Errorf("error %q does not name the hourly limit", err)
			}
		default:
			t.Fatalf("Acquire: %v", err)
		}
	}
	if ok != 20 || refused != 10 {
		t.Errorf("%d allowed and %d refused, want 20 and 10", ok, refused)
	}
	if n := len(scores(t, rdb, "hourly")); n != 20 {
		t.Errorf("%d slots kept, want 20 (a refused wait reserves none)", n)
	}
	ttl, err := rdb.PTTL(context.Background(), "seoapi:{hourly}:w").Result()
	if err != nil || ttl <= time.Hour || ttl > time.Hour+hourGuard+time.Second {
		t.Errorf("window key expires in %v (%v), want an hour and the guard after the last slot", ttl, err)
	}
}

func TestRefusalsGiveSlotsBack(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	cases := []struct {
		name    string
		opts    []Option
		hold    time.Duration // the server's hold before the refused wait
		timeout time.Duration // of the refused wait's context; 0: none
		reason  string        // the limit that asked for the wait
		why     string        // the bound the wait broke
	}{
		// The script refuses without reserving.
		{"limiter's max wait", []Option{WithMaxWait(100 * time.Millisecond)}, 0, 0,
			"fleet hourly limit: wait of 1h0m1.9", "exceeds the max wait of 100ms (redislimit.WithMaxWait)"},
		{"deadline", []Option{WithLimits(100, 1000)}, 30 * time.Second, time.Second,
			"server rate limit (fleet hold): wait of 29.", "would end after the context's deadline"},
		// No bound of the limiter's own: DefaultMaxWait.
		{"the default max wait", []Option{WithMaxWait(0)}, 0, 0,
			"fleet hourly limit: wait of 1h0m1.9", "exceeds the max wait of 1m0s (WithMaxWait)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "refuse-" + strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", "-"), "'", "")
			lim := newTestLimiter(t, rdb, name, append([]Option{WithLimits(1, 1000)}, tc.opts...)...)
			if err := acquire(context.Background(), lim); err != nil {
				t.Fatal(err)
			}
			if tc.hold > 0 {
				lim.Hold(context.Background(), tc.hold)
			}
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			err := acquire(ctx, lim)
			var apiErr *seoapi.APIError
			if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.StatusCode != 0 || apiErr.RetryAfter <= tc.timeout {
				t.Fatalf("Acquire = %v, want a refusal matching ErrRateLimited", err)
			}
			if !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("error %q does not say %q and %q", err, tc.reason, tc.why)
			}
			if n := len(scores(t, rdb, name)); n != 1 {
				t.Errorf("%d slots after the refusal, want 1", n)
			}
		})
	}
}

func TestCancelGivesSlotBack(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "cancel")
	if err := acquire(context.Background(), lim); err != nil {
		t.Fatal(err)
	}
	lim.Hold(context.Background(), 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- acquire(ctx, lim) }()
	// The second Acquire has reserved its slot when the set holds two.
	for len(scores(t, rdb, "cancel")) < 2 {
		select {
		case err := <-done:
			t.Fatalf("Acquire returned %v before it was cancelled", err)
		default:
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire = %v, want context.Canceled", err)
	}
	lim.side.Wait() // the slot of a cancelled wait is given back in the background
	if n := len(scores(t, rdb, "cancel")); n != 1 {
		t.Errorf("%d slots after the cancel, want 1", n)
	}
}

// countingLimiter is a fallback that counts its turns, the failures it is
// told and the holds, and keeps the last max wait it was given.
type countingLimiter struct {
	waits, failed, holds atomic.Int32
	maxWait              atomic.Int64
}

func (c *countingLimiter) Acquire(ctx context.Context, maxWait time.Duration) (func(bool), error) {
	c.waits.Add(1)
	c.maxWait.Store(int64(maxWait))
	return func(answered bool) {
		if !answered {
			c.failed.Add(1)
		}
	}, ctx.Err()
}

func (c *countingLimiter) Hold(context.Context, time.Duration) { c.holds.Add(1) }

func (c *countingLimiter) Budget(context.Context) (seoapi.Budget, error) {
	return seoapi.Budget{}, errors.New("no budget")
}

// records is a slog.Handler keeping what it is given.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}

// count returns how many records of level were logged.
func (r *records) count(level slog.Level) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rec := range r.recs {
		if rec.Level == level {
			n++
		}
	}
	return n
}

func TestRedisDownWithoutFallback(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "down")
	if err := acquire(context.Background(), lim); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for range 3 {
		err := acquire(context.Background(), lim)
		var unavailable *UnavailableError
		if !errors.As(err, &unavailable) || !errors.Is(err, seoapi.ErrConnection) {
			t.Fatalf("Acquire = %v, want an *UnavailableError matching ErrConnection", err)
		}
		if !strings.Contains(err.Error(), `Redis cannot be reached for budget "down", so nothing was sent`) {
			t.Errorf("error %q does not say Redis cannot be reached", err)
		}
	}
	srv.Start()
	if err := acquire(context.Background(), lim); err != nil {
		t.Fatalf("Acquire after Redis came back: %v", err)
	}
	if n := len(scores(t, rdb, "down")); n != 1 {
		t.Errorf("%d slots in the restarted Redis, want 1", n)
	}
}

func TestRedisDownUsesFallback(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	fallback := &countingLimiter{}
	logs := &records{}
	lim := newTestLimiter(t, rdb, "fallback", WithFallback(fallback), WithLogger(slog.New(logs)))
	for outage := 1; outage <= 2; outage++ {
		if err := acquire(context.Background(), lim); err != nil {
			t.Fatal(err)
		}
		before := fallback.waits.Load()
		srv.Stop()
		for range 5 {
			if err := acquire(context.Background(), lim); err != nil {
				t.Fatalf("Acquire during outage %d: %v", outage, err)
			}
		}
		if got := fallback.waits.Load() - before; got != 5 {
			t.Errorf("outage %d: the fallback waited %d times, want 5", outage, got)
		}
		if got := logs.count(slog.LevelWarn); got != outage {
			t.Errorf("after outage %d: %d warnings, want one per outage", outage, got)
		}
		srv.Start()
		if err := acquire(context.Background(), lim); err != nil {
			t.Fatal(err)
		}
		if got := fallback.waits.Load() - before; got != 5 {
			t.Errorf("outage %d: the fallback was used after Redis came back", outage)
		}
		if n := len(scores(t, rdb, "fallback")); n != 1 {
			t.Errorf("outage %d: %d slots in the restarted Redis, want 1", outage, n)
		}
		if got := logs.count(slog.LevelInfo); got != outage {
			t.Errorf("after outage %d: %d notes that Redis is back, want %d", outage, got, outage)
		}
	}
}

func TestOutageSparesRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	var sent atomic.Int32
	rdb.AddHook(afterHook(func(...redis.Cmder) { sent.Add(1) }))
	lim, err := New(rdb, "spare", WithFallback(&countingLimiter{}), WithLogger(slog.New(&records{})))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	for range 10 {
		if err := acquire(context.Background(), lim); err != nil {
			t.Fatal(err)
		}
	}
	if got := sent.Load(); got != 1 {
		t.Errorf("%d commands tried in the outage's first second, want 1", got)
	}
}

func TestFeedbackHoldsEveryLimiter(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	var sent atomic.Int32
	rdb.AddHook(afterHook(func(...redis.Cmder) { sent.Add(1) }))
	a := newTestLimiter(t, rdb, "hold")
	b := newTestLimiter(t, rdb, "hold", WithMaxWait(100*time.Millisecond))
	ctx := context.Background()

	// A hold long enough that no stall of a loaded machine between the
	// lines below can outlast it.
	const hold = 5 * time.Second
	a.Hold(ctx, hold)
	until, err := rdb.HGet(ctx, "seoapi:{hold}:hold", "until").Int64()
	if err != nil {
		t.Fatal(err)
	}
	err = acquire(ctx, b)
	var apiErr *seoapi.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.RetryAfter <= 100*time.Millisecond || apiErr.RetryAfter > hold {
		t.Fatalf("Acquire during the hold = %v, want a refusal with RetryAfter the rest of the %s", err, hold)
	}
	if !strings.Contains(err.Error(), "server rate limit") {
		t.Errorf("error %q does not name the server's hold", err)
	}
	if err := acquire(ctx, a); err != nil {
		t.Fatal(err)
	}
	slots := scores(t, rdb, "hold")
	if len(slots) != 1 || slots[0].Before(time.UnixMicro(until)) {
		t.Fatalf("slots %v, want one at or after the hold's end %v", slots, time.UnixMicro(until))
	}

	// A lift within liftGrace of the hold leaves it; a later one ends it.
	a.liftGrace = time.Minute
	a.Hold(ctx, time.Hour)
	a.Hold(ctx, 0)
	if n, _ := rdb.Exists(ctx, "seoapi:{hold}:hold").Result(); n != 1 {
		t.Fatal("a lift right after the hold ended it")
	}
	a.liftGrace = 0
	a.Hold(ctx, 0)
	if n, _ := rdb.Exists(ctx, "seoapi:{hold}:hold").Result(); n != 0 {
		t.Fatal("the lift did not end the hold")
	}
	if err := acquire(ctx, b); err != nil {
		t.Fatalf("Acquire after the lift: %v", err)
	}

	// With no hold seen, a lift costs no round trip. What done told Redis
	// in the background is counted before.
	a.side.Wait()
	b.side.Wait()
	before := sent.Load()
	for range 100 {
		a.Hold(ctx, 0)
		b.Hold(ctx, 0)
	}
	if got := sent.Load() - before; got != 0 {
		t.Errorf("100 lifts without a hold sent %d commands", got)
	}
}

// TestQueuedRequestWaitsForAHoldSetMeanwhile: a request waiting for its
// slot of the fleet's second is not let go inside a hold that another
// process stored while it waited. It waits for the hold as a new request
// would: an hour here, beyond the max wait, so it is refused and gives its
// slot back.
func TestQueuedRequestWaitsForAHoldSetMeanwhile(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	for _, tc := range []struct {
		name    string
		acquire bool
	}{{"answered", false}, {"failed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "queued-" + tc.name
			rdb := srv.Client()
			other := newTestLimiter(t, srv.Client(), name)
			var once sync.Once
			rdb.AddHook(afterHook(func(cmds ...redis.Cmder) {
				// The reserve script's answer: a slot reserved, a delay
				// ahead. Store the hold while its request waits for it.
				if c, ok := cmds[0].(*redis.Cmd); ok {
					if v, err := c.Int64Slice(); err == nil && len(v) == 5 && v[3] == 1 && v[0] > 0 {
						once.Do(func() { other.Hold(context.Background(), time.Hour) })
					}
				}
			}))
			lim := newTestLimiter(t, rdb, name, WithLimits(100, 1))
			take := func() error {
				if !tc.acquire {
					return acquire(context.Background(), lim)
				}
				done, err := lim.Acquire(context.Background(), -1)
				if err == nil {
					done(false)
				}
				return err
			}
			if err := take(); err != nil {
				t.Fatal(err)
			}
			err := take() // queued a second behind the first; the hold comes meanwhile
			lim.side.Wait()
			if n, _ := rdb.Exists(context.Background(), lim.keys[1]).Result(); n != 1 {
				t.Fatal("no hold was stored while the request waited")
			}
			if err == nil {
				t.Fatal("the queued request was let go inside the hold stored while it waited")
			}
			if !errors.Is(err, seoapi.ErrRateLimited) || !strings.Contains(err.Error(), "server rate limit (fleet hold)") {
				t.Fatalf("queued request: %v, want a refusal naming the fleet's hold", err)
			}
			if n := len(scores(t, rdb, name)); n != 1 {
				t.Errorf("%d slots after the refusal, want 1", n)
			}
		})
	}
}

// TestHoldWhileRedisDown: while Redis is down the server's hold is told
// to the fallback, and a client keeps it for its own requests whatever the
// fallback does with it.
func TestHoldWhileRedisDown(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-RateLimit-Remaining", "0")
		w.Header().Set("X-RateLimit-Reset", "60")
		w.Write([]byte(`[]`)) //nolint:errcheck // the client reads what arrives
	}))
	t.Cleanup(api.Close)
	fallback := &countingLimiter{}
	lim := newTestLimiter(t, srv.Client(), "hold-down", WithFallback(fallback), WithLogger(slog.New(&records{})))
	srv.Stop()
	client, err := seoapi.NewClient(api.URL, "sk_test_hold_down", seoapi.WithLimiter(lim), seoapi.WithMaxWait(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = client.Workspaces.List(context.Background(), nil)
	var apiErr *seoapi.APIError
	if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.RetryAfter <= time.Second || apiErr.RetryAfter > time.Minute {
		t.Fatalf("second call = %v, want the hold kept", err)
	}
	if fallback.waits.Load() != 1 || fallback.holds.Load() != 1 {
		t.Errorf("the fallback was asked %d times and told %d holds; want 1 and 1", fallback.waits.Load(), fallback.holds.Load())
	}
}

func TestClientCallFailsAtOnceWhenRedisIsDown(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	rdb := srv.Client()
	var sent atomic.Int32
	rdb.AddHook(afterHook(func(...redis.Cmder) { sent.Add(1) }))
	lim := newTestLimiter(t, rdb, "client-down")
	client, err := seoapi.NewClient(api.baseURL, api.key, seoapi.WithLimiter(lim))
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	_, _, err = client.Workspaces.List(context.Background(), nil)
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) || !errors.Is(err, seoapi.ErrConnection) {
		t.Fatalf("List = %v, want an *UnavailableError matching ErrConnection", err)
	}
	if n := len(api.fake.Requests()); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("Redis was asked %d times, want once: a limiter that cannot reach Redis is not retried", n)
	}
}

// A slot reserved for a wait that is then refused (here by the client's
// max wait, the default 60 s outside a Client, smaller than the
// limiter's own) is given back, and the hour stays full: no member of the
// hour may be dropped to make room for a slot that is given back.
func TestGivenBackSlotKeepsTheHourFull(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "full-hour", WithLimits(3, 1000), WithMaxWait(0))
	for range 3 {
		if err := acquire(context.Background(), lim); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		err := acquire(context.Background(), lim)
		var apiErr *seoapi.APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.RetryAfter < 55*time.Minute {
			t.Fatalf("Acquire %d on a full hour = %v, want a refusal of about an hour", i+4, err)
		}
		if !strings.Contains(err.Error(), "(WithMaxWait)") {
			t.Errorf("error %q does not name the client's max wait", err)
		}
		if n := len(scores(t, rdb, "full-hour")); n != 3 {
			t.Fatalf("%d slots after refusal %d, want the hour's 3", n, i+1)
		}
	}
}

// TestRedisStoppedMidRun stops Redis under goroutines that keep waiting,
// and starts it again: with a fallback no call fails and one warning is
// logged; without one the calls in the outage fail with UnavailableError;
// either way the shared budget is used again once Redis is back.
func TestRedisStoppedMidRun(t *testing.T) {
	t.Parallel()
	for _, withFallback := range []bool{true, false} {
		t.Run(map[bool]string{true: "with fallback", false: "without fallback"}[withFallback], func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t)
			rdb := srv.Client()
			logs := &records{}
			fallback := &countingLimiter{}
			opts := []Option{WithLimits(100000, 1000), WithLogger(slog.New(logs))}
			if withFallback {
				opts = append(opts, WithFallback(fallback))
			}
			lim := newTestLimiter(t, rdb, "mid-run", opts...)
			lim.health.rejoin = rejoinOutages // a restarted Redis may fail a few more times
			check := srv.Client()             // with a pool of its own, which saw no outage
			var counts waitCounts
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() { counts.waitUntil(lim, stop) })
			}
			waitFor := func(cond func() bool) {
				for !cond() {
					runtime.Gosched()
				}
			}
			waitFor(func() bool { return len(scores(t, rdb, "mid-run")) >= 20 })
			srv.Stop()
			waitFor(func() bool { return fallback.waits.Load()+counts.unavailable.Load() >= 20 })
			srv.Start()
			waitFor(func() bool { return len(scores(t, check, "mid-run")) >= 20 }) // the restarted, empty Redis
			close(stop)
			wg.Wait()
			if counts.other.Load() != 0 {
				t.Errorf("%d waits failed otherwise", counts.other.Load())
			}
			if withFallback {
				if counts.unavailable.Load() != 0 || logs.count(slog.LevelWarn) != 1 || logs.count(slog.LevelInfo) != 1 {
					t.Errorf("%d unavailable errors, %d warnings, %d notes of recovery; want 0, 1, 1",
						counts.unavailable.Load(), logs.count(slog.LevelWarn), logs.count(slog.LevelInfo))
				}
			} else if fallback.waits.Load() != 0 || len(logs.recs) != 0 {
				t.Errorf("without a fallback: %d fallback waits and %d log records", fallback.waits.Load(), len(logs.recs))
			}
		})
	}
}

// waitCounts counts the outcomes of Acquires.
type waitCounts struct{ ok, unavailable, other atomic.Int32 }

// waitUntil calls Acquire until stop is closed, counting the outcomes.
func (c *waitCounts) waitUntil(l *Limiter, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		err := acquire(context.Background(), l)
		var u *UnavailableError
		switch {
		case err == nil:
			c.ok.Add(1)
		case errors.As(err, &u):
			c.unavailable.Add(1)
		default:
			c.other.Add(1)
		}
	}
}

// acquire lets one request go for a caller that set no max wait, and
// reports it answered at once, as a client whose answer comes straight
// back does.
func acquire(ctx context.Context, l *Limiter) error {
	done, err := l.Acquire(ctx, -1)
	if err == nil {
		done(true)
	}
	return err
}

// TestClientsMaxWaitApplies: a call honours its client's max wait
// whatever redislimit.WithMaxWait says: a longer one lets it wait for the
// next slot (about 2 s here), a shorter one refuses at once, nothing sent;
// the limiter's own bound stands in only for a client that set none.
func TestClientsMaxWaitApplies(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	lim := newTestLimiter(t, srv.Client(), "client-max-wait", WithLimits(1000, 1), WithMaxWait(500*time.Millisecond))
	// A request that got no answer holds the second's only slot until its
	// release + 2 s.
	done, err := lim.Acquire(context.Background(), -1)
	if err != nil {
		t.Fatal(err)
	}
	done(false)
	newClient := func(opts ...seoapi.Option) *seoapi.Client {
		c, err := seoapi.NewClient(api.baseURL, api.key, append([]seoapi.Option{seoapi.WithLimiter(lim), seoapi.WithMaxRetries(0)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// view is a view of a client that set no max wait, as a service and a
	// batch job on one budget use it.
	view := func(opts ...seoapi.Option) *seoapi.Client {
		v, err := newClient().With(opts...)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	refused := []struct {
		name   string
		client *seoapi.Client
		says   string
	}{
		{"a shorter max wait", newClient(seoapi.WithMaxWait(100 * time.Millisecond)), "exceeds the max wait of 100ms (WithMaxWait)"},
		{"none set", newClient(), "exceeds the max wait of 500ms (redislimit.WithMaxWait)"},
		{"a service view with a shorter max wait", view(seoapi.WithMaxWait(100 * time.Millisecond)), "exceeds the max wait of 100ms (WithMaxWait)"},
	}
	for _, tc := range refused {
		start := time.Now()
		_, _, err := tc.client.Workspaces.List(context.Background(), nil)
		var apiErr *seoapi.APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.RetryAfter <= 0 || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v; want a refusal that says %q, with RetryAfter", tc.name, err, tc.says)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refused after %s, want at once", tc.name, d)
		}
	}
	start := time.Now()
	if _, _, err := view(seoapi.WithMaxWait(5*time.Second)).Workspaces.List(context.Background(), nil); err != nil {
		t.Fatalf("a batch view with a longer max wait: %v", err)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("a longer max wait: sent after %s, want after the limiter's own bound", d)
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("%d requests sent, want 1", n)
	}
}
