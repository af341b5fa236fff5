package redislimit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
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
// request counts in the rolling second: release + maxTransit + a second
// and the guard until done is called; then a second and answerGuard after
// an answer, or after a failure when that is later than what it had
// (taking the slot again if it had freed). The next slot of a one-a-second
// budget is exactly where the first stops counting (the spacing is
// shorter).
func TestSecondCountsUntilAnswered(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	cases := []struct {
		name  string
		freed bool   // the slot left the second before done was called
		done  []bool // the calls of done; none: never
		late  bool   // it counts until a second and answerGuard after done
	}{
		{"never done", false, nil, false},
		{"answered", false, []bool{true, false}, true}, // a second call does nothing
		{"failed", false, []bool{false}, false},
		{"failed after its slot freed", true, []bool{false}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name := "answer-" + strings.ReplaceAll(tc.name, " ", "-")
			lim := newTestLimiter(t, rdb, name, WithLimits(1000, 1))
			ctx := context.Background()
			done, err := lim.Acquire(ctx, -1)
			if err != nil {
				t.Fatal(err)
			}
			first := lastMember(lim)
			release, _ := score(t, rdb, lim.keys[0], first)
			if tc.freed {
				rdb.ZRem(ctx, lim.keys[2], first)
			}
			before := redisNow(t, rdb)
			for _, answered := range tc.done {
				done(answered)
			}
			lim.side.Wait()
			after := redisNow(t, rdb)
			ends, ok := score(t, rdb, lim.keys[2], first)
			if !ok {
				t.Fatal("the request is not in the second")
			}
			if tc.late {
				lo, hi := before.Add(time.Second+answerGuard), after.Add(time.Second+answerGuard)
				if ends.Before(lo) || ends.After(hi) {
					t.Errorf("counts until %s, want between %s and %s (a second and the guard after done)", ends, lo, hi)
				}
			} else if got := ends.Sub(release); got != counts {
				t.Errorf("counts for %s after its release, want %s", got, counts)
			}
			// The next slot: where the first stops counting (the spacing is
			// shorter), unless Redis's clock had passed that already.
			r, err := lim.reserveSlot(ctx, "next", time.Minute, 0)
			if err != nil || !r.reserved {
				t.Fatalf("reserve = %+v, %v", r, err)
			}
			next, _ := score(t, rdb, lim.keys[0], "next")
			if want := latest(next.Add(-r.delay), release.Add(lim.spacing()), ends); !next.Equal(want) {
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

// TestAnsweredLeavesGivenBackSlot: done for a slot given back adds nothing,
// even a failure, which would take a freed slot again.
func TestAnsweredLeavesGivenBackSlot(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "answer-given-back")
	done, err := lim.Acquire(context.Background(), -1)
	if err != nil {
		t.Fatal(err)
	}
	member := lastMember(lim)
	lim.giveBack(context.Background(), member)
	done(false)
	lim.side.Wait()
	for _, key := range lim.keys[0:3:3] {
		if _, ok := score(t, rdb, key, member); ok {
			t.Errorf("%s holds the slot given back", key)
		}
	}
}

// TestLateRequestTakesANewSlot: a request that comes back for its slot
// more than maxLate after it (its sleep woke late, or its round trip to
// Redis was slow, as on a loaded machine) does not go on that slot, whose
// second counts from the slot and would leave it less than maxTransit to
// reach the server: it takes a new slot, at once here since the budget
// is free, and counts from that one. Before, it went on the old slot and
// stopped counting as long after the slot as it came back late, while the
// server could still count it.
func TestLateRequestTakesANewSlot(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "late")
	ctx := context.Background()
	// The second request's slot is a spacing after the first's.
	for _, member := range []string{"first", "late"} {
		if _, err := lim.reserveSlot(ctx, member, time.Minute, 0); err != nil {
			t.Fatal(err)
		}
	}
	slot, ok := score(t, rdb, lim.keys[0], "late")
	if !ok || !slot.After(redisNow(t, rdb)) {
		t.Fatalf("the second request's slot is %s, want one ahead", slot)
	}
	const late = maxLate + 100*time.Millisecond
	time.Sleep(time.Until(slot.Add(late)))
	back := redisNow(t, rdb)
	r, err := lim.reserveSlot(ctx, "late", time.Minute, late)
	if err != nil {
		t.Fatal(err)
	}
	if !r.reserved || r.delay != 0 {
		t.Fatalf("the late request: %+v, want it let go at once on a new slot", r)
	}
	counted, _ := score(t, rdb, lim.keys[2], "late")
	if want := back.Add(counts); counted.Before(want) {
		t.Errorf("the late request counts until %s after it came back, want at least %s (from when it went, not from its slot %s before)",
			counted.Sub(back), counts, back.Sub(slot).Round(time.Millisecond))
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
	if err := lim.endScript.Load(context.Background(), rdb).Err(); err != nil {
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
	if got := hook.count(lim.endScript); got != attempts {
		t.Errorf("%d answers told for %d attempts", got, attempts)
	}
}

// TestAcquireWhileRedisIsDown: without a fallback Acquire fails with an
// *UnavailableError and no done; with one it returns the fallback's, which
// is told how the request ended.
func TestAcquireWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	for _, withFallback := range []bool{false, true} {
		t.Run(map[bool]string{false: "no fallback", true: "a fallback"}[withFallback], func(t *testing.T) {
			t.Parallel()
			srv := startRedis(t)
			fallback := &countingLimiter{}
			opts := []Option{WithLogger(slog.New(&records{})), WithMaxWait(42 * time.Second)}
			if withFallback {
				opts = append(opts, WithFallback(fallback))
			}
			lim := newTestLimiter(t, srv.Client(), "acquire-down", opts...)
			srv.Stop()
			done, err := lim.Acquire(context.Background(), -1)
			if !withFallback {
				var unavailable *UnavailableError
				if !errors.As(err, &unavailable) || done != nil {
					t.Fatalf("Acquire = %p, %v; want no done and an *UnavailableError", done, err)
				}
				return
			}
			if err != nil || done == nil {
				t.Fatalf("Acquire = %p, %v; want the fallback's turn", done, err)
			}
			done(false)
			if fallback.waits.Load() != 1 || fallback.failed.Load() != 1 || fallback.maxWait.Load() != int64(42*time.Second) {
				t.Errorf("the fallback was asked %d times with a max wait of %s and told %d failures; want 1, 42s, 1",
					fallback.waits.Load(), time.Duration(fallback.maxWait.Load()), fallback.failed.Load())
			}
		})
	}
}

// TestClientTellsNoAnswer: an attempt that timed out without an answer
// (the HTTP client's Timeout) keeps its slot of the fleet's second until
// its release + maxTransit and a second, as the built-in limiter keeps it:
// a server too busy to accept the connection may still read the request
// later. Told "answered", the fleet would free it a second after the
// timeout, and the next calls would meet 429s.
func TestClientTellsNoAnswer(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "client-no-answer", WithLimits(1000, 20))
	api := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // no answer: the client gives up
	}))
	t.Cleanup(api.Close)
	client, err := seoapi.NewClient(api.URL, "sk_test_no_answer", seoapi.WithLimiter(lim),
		seoapi.WithHTTPClient(&http.Client{Timeout: 150 * time.Millisecond}), seoapi.WithMaxRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.Workspaces.List(context.Background(), nil); !errors.Is(err, seoapi.ErrConnection) {
		t.Fatalf("the call = %v, want a connection failure", err)
	}
	lim.side.Wait() // what done says is told in the background
	member := lastMember(lim)
	release, _ := score(t, rdb, lim.keys[0], member)
	ends, ok := score(t, rdb, lim.keys[2], member)
	if want := release.Add(maxTransit + time.Second + answerGuard); !ok || ends.Before(want) {
		t.Errorf("the request that got no answer counts in the second until %s (%t), want until %s at least", ends, ok, want)
	}
}
