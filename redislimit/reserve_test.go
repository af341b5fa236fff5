package redislimit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
)

// TestReserveKeepsTheHourForOthers: a limiter with a reserve of the hour
// is refused once only the reserve is left; limiters without one still
// get the reserve at once, and then the hour is full for both.
func TestReserveKeepsTheHourForOthers(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	cases := []struct {
		name                string
		perHour, reserve    int
		batchFirst, service int // what the batch, then the service, get
	}{
		{"reserve of 3 in 10", 10, 3, 7, 3},
		{"reserve of 1 in 2", 2, 1, 1, 1},
		{"no reserve", 5, 0, 5, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "reserve-hour-" + strings.ReplaceAll(tc.name, " ", "-")
			opts := []Option{WithLimits(tc.perHour, 1000), WithMaxWait(time.Minute)}
			batch := newTestLimiter(t, rdb, name, append(opts, WithReserve(tc.reserve, 0))...)
			service := newTestLimiter(t, rdb, name, opts...)
			wantReason := "fleet hourly limit"
			if tc.reserve > 0 {
				wantReason = fmt.Sprintf("fleet hourly limit less the reserve of %d (redislimit.WithReserve): wait of ", tc.reserve)
			}
			if got := admitted(t, batch, tc.perHour+1, wantReason); got != tc.batchFirst {
				t.Errorf("the batch got %d requests through, want %d", got, tc.batchFirst)
			}
			if got := admitted(t, service, tc.perHour+1, "fleet hourly limit: wait of "); got != tc.service {
				t.Errorf("then the service got %d, want %d", got, tc.service)
			}
			if got := admitted(t, batch, 1, wantReason); got != 0 {
				t.Errorf("then the batch got %d more, want none", got)
			}
			if n := len(scores(t, rdb, name)); n != tc.perHour {
				t.Errorf("%d slots reserved, want the hour's %d", n, tc.perHour)
			}
		})
	}
}

// admitted makes up to n Acquires until one is refused, checks the refusal
// (an hour's wait, nothing reserved, the limit named), and returns how
// many went through.
func admitted(t *testing.T, l *Limiter, n int, reason string) int {
	t.Helper()
	for i := range n {
		err := acquire(context.Background(), l)
		if err == nil {
			continue
		}
		var apiErr *seoapi.APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.StatusCode != 0 || apiErr.RetryAfter < 59*time.Minute {
			t.Fatalf("Acquire %d = %v, want a refusal of about an hour", i+1, err)
		}
		if !strings.Contains(err.Error(), reason) {
			t.Errorf("refusal %q does not say %q", err, reason)
		}
		return i
	}
	return n
}

// TestReserveKeepsTheSecondForOthers reads the releases the script gives
// (without waiting for them): a limiter with a reserve of 2 of 5 a second
// never has more than 3 slots in a second's window, while one without a
// reserve is spaced as usual, and the fleet as a whole keeps 5.
func TestReserveKeepsTheSecondForOthers(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	const perSecond, reserve = 5, 2
	name := "reserve-second"
	batch := newTestLimiter(t, rdb, name, WithLimits(1000, perSecond), WithReserve(0, reserve))
	service := newTestLimiter(t, rdb, name, WithLimits(1000, perSecond))
	ctx := context.Background()
	// reserveAs reserves a slot for member and checks its release:
	// Redis's now, the spacing after the latest release, or when
	// the slot that let it go stops counting, whichever is latest.
	// The members reserved so far, latest release first.
	var members []string
	reserveAs := func(l *Limiter, member string, limit int) {
		t.Helper()
		r, err := l.reserveSlot(ctx, member, time.Minute, 0)
		if err != nil || !r.reserved {
			t.Fatalf("reserve %s = %+v, %v", member, r, err)
		}
		at, _ := score(t, rdb, l.keys[0], member)
		want := at.Add(-r.delay)
		if len(members) > 0 {
			last, _ := score(t, rdb, l.keys[0], members[0])
			want = latest(want, last.Add(l.spacing()))
		}
		if len(members) >= limit {
			// The limit-th latest end of the others; all are
			// still counting (no answers are told here).
			ends := make([]time.Time, len(members))
			for i, m := range members {
				ends[i], _ = score(t, rdb, l.keys[2], m)
			}
			slices.SortFunc(ends, func(a, b time.Time) int { return b.Compare(a) })
			want = latest(want, ends[limit-1])
		}
		if !at.Equal(want) {
			t.Errorf("%s released at %s, want %s", member, at, want)
		}
		members = append([]string{member}, members...)
	}
	// The batch's three, then the service's two follow at the
	// spacing: the reserve is free for the service. The batch's
	// fourth is held back until only 2 of the 5 count, without a
	// place in line: the service's third is not behind it.
	for i := range 3 {
		reserveAs(batch, fmt.Sprint("batch-", i), perSecond-reserve)
	}
	for i := range 2 {
		reserveAs(service, fmt.Sprint("service-", i), perSecond)
	}
	checkHeldBack(t, batch, "batch-3", members, perSecond-reserve)
	reserveAs(service, "service-2", perSecond)
	var batchSlots, all []time.Time
	for _, m := range []string{"batch-0", "batch-1", "batch-2"} {
		at, _ := score(t, rdb, batch.keys[0], m)
		batchSlots = append(batchSlots, at)
	}
	all = scores(t, rdb, name)
	checkWindows(t, batchSlots, counts, perSecond-reserve)
	checkWindows(t, all, counts, perSecond)
}

// checkHeldBack asks a slot for member of l, a limiter with a reserve, and
// checks that the reserve holds it back, reserving nothing, until the
// limit-th latest end of the members counting.
func checkHeldBack(t *testing.T, l *Limiter, member string, members []string, limit int) {
	t.Helper()
	before := redisNow(t, l.rdb)
	r, err := l.reserveSlot(context.Background(), member, time.Minute, 0)
	after := redisNow(t, l.rdb)
	if err != nil || r.reserved || !r.byReserve {
		t.Fatalf("reserve %s = %+v, %v; want held back by the reserve, nothing reserved", member, r, err)
	}
	ends := make([]time.Time, len(members))
	for i, m := range members {
		ends[i], _ = score(t, l.rdb, l.keys[2], m)
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return b.Compare(a) })
	if lo, hi := before.Add(r.delay), after.Add(r.delay); ends[limit-1].Before(lo) || ends[limit-1].After(hi) {
		t.Errorf("%s held back until between %s and %s, want %s: when only %d of them count", member, lo, hi, ends[limit-1], limit-1)
	}
}

// TestReserveTakesNoPlaceInLine: with 10 a second, a batch limiter keeping
// a reserve of 5 and many goroutines reserves at most its 5 slots; the
// rest of its requests wait without a place in line, so that the
// service's first request (a limiter without a reserve) has at most the
// batch's 5 slots ahead of it, and is not refused under a max wait of 2 s.
func TestReserveTakesNoPlaceInLine(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	const perSecond, reserve = 10, 5
	for _, goroutines := range []int{6, 40} {
		t.Run(fmt.Sprint(goroutines, " goroutines"), func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprint("no-line-", goroutines)
			batchRDB := srv.Client()
			hook := countScripts(batchRDB)
			batch := newTestLimiter(t, batchRDB, name, WithLimits(10000, perSecond), WithReserve(0, reserve))
			service := newTestLimiter(t, srv.Client(), name, WithLimits(10000, perSecond), WithMaxWait(2*time.Second))
			if err := batch.reserveScript.Load(context.Background(), batchRDB).Err(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range goroutines {
				wg.Go(func() {
					for ctx.Err() == nil {
						if done, err := batch.Acquire(ctx, -1); err == nil {
							done(true)
						}
					}
				})
			}
			defer func() { cancel(); wg.Wait(); batch.side.Wait() }()
			// Every goroutine of the batch has asked once, at least.
			for hook.count(batch.reserveScript) < goroutines {
				runtime.Gosched()
			}
			rdb := srv.Client()
			before := redisNow(t, rdb)
			done, err := service.Acquire(context.Background(), -1)
			if err != nil {
				t.Fatalf("the service's first request: %v", err)
			}
			done(true)
			at, _ := score(t, rdb, service.keys[0], lastMember(service))
			ahead, err := rdb.ZCount(context.Background(), service.keys[0],
				fmt.Sprintf("(%d", before.UnixMicro()), fmt.Sprintf("(%d", at.UnixMicro())).Result()
			if err != nil {
				t.Fatal(err)
			}
			if ahead > perSecond-reserve {
				t.Errorf("the service's first request had %d slots ahead of it, want at most the batch's %d", ahead, perSecond-reserve)
			}
		})
	}
}
