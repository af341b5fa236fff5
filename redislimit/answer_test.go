package redislimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
)

// score returns the score of member in key, as a time.
func score(t *testing.T, rdb redis.UniversalClient, key, member string) (time.Time, bool) {
	t.Helper()
	s, err := rdb.ZScore(context.Background(), key, member).Result()
	if err == redis.Nil {
		return time.Time{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return time.UnixMicro(int64(s)), true
}

// redisNow returns Redis's clock.
func redisNow(t *testing.T, rdb redis.UniversalClient) time.Time {
	t.Helper()
	now, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// lastMember returns the member the limiter reserved last.
func lastMember(l *Limiter) string {
	return l.instance + ":" + strconv.FormatUint(l.seq.Load(), 36)
}

// TestSecondCountsUntilAnswered checks, on Redis's own scores, how long a
// request counts in the rolling second: from its release a second and the
// wider guard for Wait; release + maxTransit + a second and the guard for
// Acquire until it is answered; then a second and answerGuard after the
// answer. The next slot of a one-a-second budget is exactly where the
// first stops counting (the spacing is shorter).
func TestSecondCountsUntilAnswered(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	cases := []struct {
		name     string
		acquire  bool
		answer   bool
		counts   time.Duration // from the release, when not answered
		answered bool          // the end is a second and answerGuard after the answer
	}{
		{"Wait", false, false, time.Second + releaseGuard, false},
		{"Acquire unanswered", true, false, maxTransit + time.Second + answerGuard, false},
		{"Acquire answered", true, true, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "answer-" + strings.ReplaceAll(tc.name, " ", "-")
			lim := newTestLimiter(t, rdb, name, WithLimits(1000, 1))
			ctx := context.Background()
			var answered func()
			var err error
			if tc.acquire {
				answered, err = lim.Acquire(ctx)
				if err == nil && answered == nil {
					t.Fatal("Acquire returned a nil answered")
				}
			} else {
				err = lim.Wait(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
			first := lastMember(lim)
			release, _ := score(t, rdb, lim.keys[0], first)
			before := redisNow(t, rdb)
			if tc.answer {
				answered()
				answered() // a second call does nothing
				lim.side.Wait()
			}
			after := redisNow(t, rdb)
			ends, ok := score(t, rdb, lim.keys[2], first)
			if !ok {
				t.Fatal("the request is not in the second")
			}
			if tc.answered {
				lo, hi := before.Add(time.Second+answerGuard), after.Add(time.Second+answerGuard)
				if ends.Before(lo) || ends.After(hi) {
					t.Errorf("answered: counts until %s, want between %s and %s (a second and the guard after the answer)", ends, lo, hi)
				}
			} else if got := ends.Sub(release); got != tc.counts {
				t.Errorf("counts for %s after its release, want %s", got, tc.counts)
			}
			// The next slot: where the first stops counting (the spacing is
			// shorter), unless Redis's clock had passed that already.
			r, err := lim.reserveSlot(ctx, "next", true, 0)
			if err != nil || !r.reserved {
				t.Fatalf("reserve = %+v, %v", r, err)
			}
			next, _ := score(t, rdb, lim.keys[0], "next")
			if want := latest(next.Add(-r.delay), release.Add(lim.spacing(true)), ends); !next.Equal(want) {
				t.Errorf("next release %s, want %s: when the first stops counting (%s) or Redis's now", next, want, ends)
			}
		})
	}
}

// latest returns the latest of times.
func latest(times ...time.Time) time.Time {
	l := times[0]
	for _, t := range times[1:] {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// TestAnsweredLeavesGivenBackSlot: an answer for a slot no longer in the
// second (given back) adds nothing.
func TestAnsweredLeavesGivenBackSlot(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "answer-given-back")
	answered, err := lim.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	member := lastMember(lim)
	lim.giveBack(context.Background(), member)
	answered()
	lim.side.Wait()
	for _, key := range lim.keys[0:3:3] {
		if _, ok := score(t, rdb, key, member); ok {
			t.Errorf("%s holds the slot given back", key)
		}
	}
}

// scriptRuns counts the scripts a client ran with EVALSHA, by SHA1.
type scriptRuns struct {
	mu   sync.Mutex
	runs map[string]int
}

// countScripts counts the scripts rdb runs from now on.
func countScripts(rdb *redis.Client) *scriptRuns {
	h := &scriptRuns{runs: map[string]int{}}
	rdb.AddHook(afterHook(func(cmds ...redis.Cmder) {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, cmd := range cmds {
			if args := cmd.Args(); cmd.Name() == "evalsha" && len(args) > 1 {
				h.runs[fmt.Sprint(args[1])]++
			}
		}
	}))
	return h
}

func (h *scriptRuns) count(s *redis.Script) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[s.Hash()]
}

// TestClientTellsTheAnswer: a seoapi.Client given the Limiter acquires
// every attempt with Acquire and tells each answer, also of an attempt
// answered 429 (retried) and of one that failed.
func TestClientTellsTheAnswer(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	api := startFleetAPI(t, nil)
	rdb := srv.Client()
	hook := countScripts(rdb)
	lim := newTestLimiter(t, rdb, "client-answers")
	// Load the script, so that every run is an EVALSHA counted by hash.
	if err := lim.answerScript.Load(context.Background(), rdb).Err(); err != nil {
		t.Fatal(err)
	}
	client, err := seoapi.NewClient(api.baseURL, api.key, seoapi.WithLimiter(lim), seoapi.WithRetryWait(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	api.fake.FailNext(1, 503, nil) // one attempt answered 503, then retried
	for range 3 {
		if _, _, err := client.Workspaces.List(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	lim.side.Wait() // the answers are told in the background
	attempts := len(api.fake.Requests())
	if attempts != 4 {
		t.Fatalf("%d attempts reached the API, want 4", attempts)
	}
	if got := len(scores(t, rdb, "client-answers")); got != attempts {
		t.Errorf("%d slots in the hour for %d attempts", got, attempts)
	}
	if got := hook.count(lim.answerScript); got != attempts {
		t.Errorf("%d answers told for %d attempts", got, attempts)
	}
}

// slotFallback is a fallback that is a seoapi.SlotLimiter: it counts its
// acquisitions and the answers it is told.
type slotFallback struct {
	countingLimiter
	acquired, answered atomic.Int32
}

func (s *slotFallback) Acquire(ctx context.Context) (func(), error) {
	s.acquired.Add(1)
	return func() { s.answered.Add(1) }, ctx.Err()
}

// TestAcquireWhileRedisIsDown: without a fallback Acquire fails with an
// *UnavailableError and no answered; with one it returns an answered
// that is safe to call, and a fallback that is a SlotLimiter is asked
// with Acquire and told the answer.
func TestAcquireWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		fallback seoapi.Limiter // nil: none
	}{
		{"no fallback", nil},
		{"a Limiter", &countingLimiter{}},
		{"a SlotLimiter", &slotFallback{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t)
			opts := []Option{WithLogger(slog.New(&records{}))}
			if tc.fallback != nil {
				opts = append(opts, WithFallback(tc.fallback))
			}
			lim := newTestLimiter(t, srv.Client(), "acquire-down", opts...)
			srv.Stop()
			answered, err := lim.Acquire(context.Background())
			if tc.fallback == nil {
				var unavailable *UnavailableError
				if !errors.As(err, &unavailable) || answered != nil {
					t.Fatalf("Acquire = %p, %v; want no answered and an *UnavailableError", answered, err)
				}
				return
			}
			if err != nil || answered == nil {
				t.Fatalf("Acquire = %p, %v; want the fallback's turn", answered, err)
			}
			answered()
			switch f := tc.fallback.(type) {
			case *slotFallback:
				if f.acquired.Load() != 1 || f.answered.Load() != 1 || f.waits.Load() != 0 {
					t.Errorf("the fallback acquired %d, was told %d answers and waited %d times; want 1, 1, 0", f.acquired.Load(), f.answered.Load(), f.waits.Load())
				}
			case *countingLimiter:
				if f.waits.Load() != 1 {
					t.Errorf("the fallback waited %d times, want 1", f.waits.Load())
				}
			}
		})
	}
}
