package seoapi

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clockedLimiter is a Limiter from outside the core whose wait takes d on
// a manual clock and then ends with err (or the context's error, when it
// was cancelled before). It keeps the max wait its context carried.
type clockedLimiter struct {
	clk *clock
	d   time.Duration
	err error

	mu       sync.Mutex
	maxWait  time.Duration
	answered int
}

func (l *clockedLimiter) Wait(ctx context.Context) error {
	l.clk.advance(l.d)
	l.mu.Lock()
	l.maxWait = clientMaxWait(ctx)
	l.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.err
}

// clockedSlots is clockedLimiter as a SlotLimiter.
type clockedSlots struct{ clockedLimiter }

func (l *clockedSlots) Acquire(ctx context.Context) (func(), error) {
	if err := l.Wait(ctx); err != nil {
		return func() { panic("answered of a failed Acquire") }, err
	}
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.answered++
	}, nil
}

// clockedFleet is clockedSlots as a FeedbackLimiter too.
type clockedFleet struct{ clockedSlots }

func (*clockedFleet) Feedback(context.Context, RateFeedback) {}

// TestAcquireIsWaitedLikeWait: a SlotLimiter's Acquire gets the client's
// max wait in its context and its wait is reported exactly as a Limiter's
// Wait is: a wait of a millisecond or more, or one the context cut short;
// never a refusal.
func TestAcquireIsWaitedLikeWait(t *testing.T) {
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
	kinds := []struct {
		name  string
		make  func() (Limiter, *clockedLimiter)
		slots bool
	}{
		{"Limiter", func() (Limiter, *clockedLimiter) { l := &clockedLimiter{}; return l, l }, false},
		{"SlotLimiter", func() (Limiter, *clockedLimiter) { l := &clockedSlots{}; return l, &l.clockedLimiter }, true},
		{"SlotLimiter and FeedbackLimiter", func() (Limiter, *clockedLimiter) { l := &clockedFleet{}; return l, &l.clockedLimiter }, true},
	}
	for _, tt := range tests {
		for _, k := range kinds {
			t.Run(tt.name+"/"+k.name, func(t *testing.T) {
				t.Parallel()
				start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				clk := &clock{t: start}
				lim, inner := k.make()
				inner.clk, inner.d, inner.err = clk, tt.d, tt.err
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
				}
				for i := range tt.want {
					tt.want[i].start = start
				}
				assert.Equal(t, tt.want, append([]waitRecord(nil), rec...))

				inner.mu.Lock()
				assert.Equal(t, 42*time.Second, inner.maxWait, "the client's max wait reaches the limiter")
				inner.mu.Unlock()

				if err == nil {
					al.done(ticket, true)
				}
				inner.mu.Lock()
				defer inner.mu.Unlock()
				wantAnswered := 0
				if k.slots && err == nil {
					wantAnswered = 1
				}
				assert.Equal(t, wantAnswered, inner.answered)
			})
		}
	}
}

// TestBuiltInLimiterIsASlotLimiter: the limiter NewLimiter returns counts
// a request let go by Acquire until a second (and the guard) after its
// answer, and one let go by Wait, or by Acquire and never answered, from
// its release.
func TestBuiltInLimiterIsASlotLimiter(t *testing.T) {
	t.Parallel()
	lim, err := NewLimiter(1000, 1, 0)
	require.NoError(t, err)
	_, ok := lim.(SlotLimiter)
	require.True(t, ok, "NewLimiter returns a SlotLimiter")

	tests := []struct {
		name string
		take func(l *windowLimiter, clk *clock) // lets one request go, 100 ms after its release
		want time.Duration                      // the next request's wait, from then
	}{
		{"Acquire, answered after 100 ms", func(l *windowLimiter, clk *clock) {
			answered, err := l.Acquire(context.Background())
			require.NoError(t, err)
			clk.advance(100 * time.Millisecond)
			answered()
		}, time.Second + secondGuard},
		{"Acquire, never answered", func(l *windowLimiter, clk *clock) {
			_, err := l.Acquire(context.Background())
			require.NoError(t, err)
			clk.advance(100 * time.Millisecond)
		}, secondSpan - 100*time.Millisecond},
		{"Wait", func(l *windowLimiter, clk *clock) {
			require.NoError(t, l.Wait(context.Background()))
			clk.advance(100 * time.Millisecond)
		}, time.Second + releaseGuard - 100*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			l := newWindowLimiter(1000, 1, 0, clk.now)
			tt.take(l, clk)
			ctx := context.WithValue(context.Background(), maxWaitKey{}, time.Nanosecond)
			_, err := l.Acquire(ctx)
			var apiErr *APIError
			require.True(t, errors.As(err, &apiErr), "%v", err)
			assert.Equal(t, tt.want, apiErr.RetryAfter)
		})
	}
}
