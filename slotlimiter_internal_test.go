package seoapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clockedLimiter is a Limiter from outside the core whose wait takes d on
// a manual clock and then ends with err (or the context's error, when it
// was cancelled before). It keeps the max wait it was given and what each
// done said.
type clockedLimiter struct {
	countingLimiter
	clk *clock
	d   time.Duration
	err error

	answers []bool
}

func (l *clockedLimiter) Acquire(ctx context.Context, maxWait time.Duration) (func(bool), error) {
	l.clk.advance(l.d)
	l.countingLimiter.Acquire(ctx, maxWait) //nolint:errcheck // it never fails
	if err := cmp.Or(ctx.Err(), l.err); err != nil {
		return nil, err
	}
	return func(answered bool) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.answers = append(l.answers, answered)
	}, nil
}

// TestLimiterTurnIsReported: another Limiter's Acquire gets the client's
// max wait, its wait is reported (a millisecond or more, or one the
// context cut short; never a refusal), and its done hears whether the
// attempt was answered.
func TestLimiterTurnIsReported(t *testing.T) {
	t.Parallel()
	refused := RefuseWait(time.Hour, "fleet limit: too long")
	tests := []struct {
		name      string
		d         time.Duration
		err       error
		cancelled bool
		want      []waitRecord // start is the clock's start
	}{
		{"no wait", 0, nil, false, nil},
		{"a wait too short to report", minReportedWait - 1, nil, false, nil},
		{"a wait", 2 * time.Second, nil, false, []waitRecord{{level: WaitLimiter, d: 2 * time.Second}}},
		{"refused", 0, refused, false, nil},
		{"cut short by the context", 0, nil, true, []waitRecord{{level: WaitLimiter, err: context.Canceled}}},
	}
	for _, tt := range tests {
		for _, answered := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/answered=%t", tt.name, answered), func(t *testing.T) {
				t.Parallel()
				start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				clk := &clock{t: start}
				lim := &clockedLimiter{clk: clk, d: tt.d, err: tt.err}
				al := newAttemptLimiter(rateLimitConfig{limiter: lim}, clk.now)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.cancelled {
					cancel()
				}
				var rec waitRecords
				ticket, err := al.acquire(ctx, 42*time.Second, &rec)
				switch {
				case tt.err != nil:
					require.ErrorIs(t, err, tt.err)
				case tt.cancelled:
					require.ErrorIs(t, err, context.Canceled)
				default:
					require.NoError(t, err)
					al.done(ticket, answered)
				}
				for i := range tt.want {
					tt.want[i].start = start
				}
				assert.Equal(t, tt.want, append([]waitRecord(nil), rec...))
				lim.mu.Lock()
				defer lim.mu.Unlock()
				assert.Equal(t, 42*time.Second, lim.maxWait, "the client's max wait reaches the limiter")
				var want []bool
				if err == nil {
					want = []bool{answered}
				}
				assert.Equal(t, want, lim.answers, "done hears whether the attempt was answered")
			})
		}
	}
}

// TestBuiltInLimiterCountsFromDone: the limiter NewLimiter returns counts
// a request in the second until a second (and the guard) after its answer;
// one that failed, or was never reported, until release + maxTransit and a
// second, or a second after a later failure.
func TestBuiltInLimiterCountsFromDone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		after time.Duration // when done is called, from the release
		done  []bool        // its calls; none: never
		want  time.Duration // the next request's wait, from the release
	}{
		{"answered after 100 ms", 100 * time.Millisecond, []bool{true}, 100*time.Millisecond + time.Second + secondGuard},
		{"answered twice: the first counts", 100 * time.Millisecond, []bool{true, false}, 100*time.Millisecond + time.Second + secondGuard},
		{"failed after 100 ms", 100 * time.Millisecond, []bool{false}, secondSpan},
		{"failed after 1.5 s", 1500 * time.Millisecond, []bool{false}, 1500*time.Millisecond + time.Second + secondGuard},
		{"never reported", 100 * time.Millisecond, nil, secondSpan},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			var lim Limiter = newWindowLimiter(1000, 1, 0, clk.now)
			done, err := lim.Acquire(context.Background(), -1)
			require.NoError(t, err)
			clk.advance(tt.after)
			for _, answered := range tt.done {
				done(answered)
			}
			clk.advance(-tt.after)
			_, err = lim.Acquire(context.Background(), time.Nanosecond)
			var apiErr *APIError
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tt.want, apiErr.RetryAfter)
		})
	}
}
