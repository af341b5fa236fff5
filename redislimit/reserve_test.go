package redislimit

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// admitted makes up to n Waits until one is refused, checks the refusal
// (an hour's wait, nothing reserved, the limit named), and returns how
// many went through.
func admitted(t *testing.T, l *Limiter, n int, reason string) int {
	t.Helper()
	for i := range n {
		err := l.Wait(context.Background())
		if err == nil {
			continue
		}
		var apiErr *seoapi.APIError
		if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.StatusCode != 0 || apiErr.RetryAfter < 59*time.Minute {
			t.Fatalf("Wait %d = %v, want a refusal of about an hour", i+1, err)
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
	for _, answered := range []bool{false, true} {
		t.Run(map[bool]string{false: "Wait", true: "Acquire"}[answered], func(t *testing.T) {
			t.Parallel()
			name := fmt.Sprintf("reserve-second-%t", answered)
			batch := newTestLimiter(t, rdb, name, WithLimits(1000, perSecond), WithReserve(0, reserve))
			service := newTestLimiter(t, rdb, name, WithLimits(1000, perSecond))
			ctx := context.Background()
			reserveAs := func(l *Limiter, member string) reservation {
				t.Helper()
				r, err := l.reserveSlot(ctx, member, answered)
				if err != nil || !r.reserved {
					t.Fatalf("reserve %s = %+v, %v", member, r, err)
				}
				return r
			}
			for i := range 3 {
				reserveAs(batch, fmt.Sprint("batch-", i))
			}
			// The service's two follow at the spacing: the reserve is free.
			for i := range 2 {
				if r := reserveAs(service, fmt.Sprint("service-", i)); r.why == reasonSecond && i > 0 {
					t.Errorf("the service's slot %d waited for the second: %s", i, service.reason(r))
				}
			}
			// The batch's fourth waits until its first stops counting.
			r := reserveAs(batch, "batch-3")
			if want := "fleet per-second limit less the reserve of 2 (redislimit.WithReserve)"; batch.reason(r) != want {
				t.Errorf("the batch's fourth waited for %q, want %q", batch.reason(r), want)
			}
			first, _ := score(t, rdb, batch.keys[2], "batch-0")
			fourth, _ := score(t, rdb, batch.keys[0], "batch-3")
			// The service's slots still count, so the fourth of the batch
			// goes once only 2 of the 5 count: when the third of the
			// batch's first three stops, or later.
			if fourth.Before(first) {
				t.Errorf("the batch's fourth release %s is before its first stops counting %s", fourth, first)
			}
			var batchSlots, all []time.Time
			for _, m := range []string{"batch-0", "batch-1", "batch-2", "batch-3"} {
				at, _ := score(t, rdb, batch.keys[0], m)
				batchSlots = append(batchSlots, at)
			}
			all = scores(t, rdb, name)
			checkWindows(t, batchSlots, counts(answered), perSecond-reserve)
			checkWindows(t, all, counts(answered), perSecond)
		})
	}
}
