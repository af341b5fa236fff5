package redislimit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
)

// hangGuard is how long a call may take before a test says it hung. It
// is no measure of speed: a call bounded by its context returns within
// a fraction of it, one that waits for a paused Redis takes seconds more.
const hangGuard = 3 * time.Second

// callWithin runs call and returns its error, or fails t when call has not
// returned within hangGuard.
func callWithin(t *testing.T, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(hangGuard):
		t.Fatalf("the call has not returned after %s: it waits for Redis beyond its context", hangGuard)
		return nil
	}
}

// TestHungRedisBoundedByContext pauses Redis (SIGSTOP) before a call, or
// while the API serves its request, and checks that the call returns as
// its context says, with go-redis's default options and with
// ContextTimeoutEnabled: before the request, with the context's error and
// nothing sent; after it, with the answer, since telling Redis the
// answer is not waited for.
func TestHungRedisBoundedByContext(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		pauseFirst bool // pause before the call; otherwise when the API reads the request
		timeout    time.Duration
		wantErr    error // nil: the call succeeds
		wantSent   int
	}{
		{"paused before the call", true, 200 * time.Millisecond, context.DeadlineExceeded, 0},
		{"paused after the release", false, 300 * time.Millisecond, nil, 1},
	}
	for _, tc := range cases {
		for _, ctxTimeout := range []bool{false, true} {
			name := tc.name
			if ctxTimeout {
				name += ", ContextTimeoutEnabled"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				srv := startRedis(t)
				rdb := redis.NewClient(&redis.Options{Addr: srv.addr, ContextTimeoutEnabled: ctxTimeout})
				t.Cleanup(func() { rdb.Close() })
				lim := newTestLimiter(t, rdb, "hung")
				t.Cleanup(lim.side.Wait) // after Redis is resumed: cleanups run last first
				api := startFleetAPI(t, func(next http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if !tc.pauseFirst {
							srv.Pause()
						}
						next.ServeHTTP(w, r)
					})
				})
				client, err := seoapi.NewClient(api.baseURL, api.key, seoapi.WithLimiter(lim), seoapi.WithRetryWait(0, 0))
				if err != nil {
					t.Fatal(err)
				}
				if tc.pauseFirst {
					srv.Pause()
				}
				err = callWithin(t, func() error {
					ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
					defer cancel()
					_, _, err := client.Workspaces.List(ctx, nil)
					return err
				})
				if tc.wantErr == nil && err != nil || !errors.Is(err, tc.wantErr) {
					t.Errorf("List = %v, want %v", err, tc.wantErr)
				}
				if n := len(api.requests()); n != tc.wantSent {
					t.Errorf("%d requests reached the API, want %d", n, tc.wantSent)
				}
			})
		}
	}
}

// TestHungRedisGivesTheSlotBack: a reservation the call stopped waiting
// for is given back once Redis answers again.
func TestHungRedisGivesTheSlotBack(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "hung-give-back")
	srv.Pause()
	err := callWithin(t, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		return acquire(ctx, lim)
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire = %v, want context.DeadlineExceeded", err)
	}
	srv.Resume()
	lim.side.Wait()
	if n := len(scores(t, rdb, "hung-give-back")); n != 0 {
		t.Errorf("%d slots after the abandoned reservation, want none", n)
	}
}

// TestAbandonedRequestKeepsItsSlot: a request whose context ends while it
// is in flight (the API has not answered) keeps counting in the second as
// long as its release allows, since a server may still read it; the
// answer the client tells for the failed attempt does not shorten it.
func TestAbandonedRequestKeepsItsSlot(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rdb := srv.Client()
	lim := newTestLimiter(t, rdb, "abandoned")
	api := startFleetAPI(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // a server that is slow to read
		})
	})
	client, err := seoapi.NewClient(api.baseURL, api.key, seoapi.WithLimiter(lim))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := client.Workspaces.List(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("List = %v, want context.DeadlineExceeded", err)
	}
	lim.side.Wait()
	member := lastMember(lim)
	release, ok := score(t, rdb, lim.keys[0], member)
	if !ok {
		t.Fatal("the request has no slot in the hour")
	}
	ends, ok := score(t, rdb, lim.keys[2], member)
	if want := release.Add(counts); !ok || !ends.Equal(want) {
		t.Errorf("the abandoned request counts in the second until %s, want %s (its release + %s)", ends, want, counts)
	}
}

// TestStaleAnswerKeepsTheHold: request A is in flight when the server's
// hold is stored, by another request of the same process or by another
// process; A's answer then says requests remain. It comes from before
// the hold, so the hold stands for the whole fleet.
func TestStaleAnswerKeepsTheHold(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	for _, sameProcess := range []bool{true, false} {
		t.Run(map[bool]string{true: "same process", false: "another process"}[sameProcess], func(t *testing.T) {
			t.Parallel()
			rdb := srv.Client()
			name := fmt.Sprint("stale-", sameProcess)
			lim := newTestLimiter(t, rdb, name)
			other := newTestLimiter(t, rdb, name, WithMaxWait(time.Second))
			holder := other
			if sameProcess {
				holder = lim
			}
			arrived, release := make(chan struct{}), make(chan struct{})
			api := startFleetAPI(t, func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					close(arrived)
					<-release
					next.ServeHTTP(w, r) // says requests remain
				})
			})
			client, err := seoapi.NewClient(api.baseURL, api.key, seoapi.WithLimiter(lim))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, resp, err := client.Workspaces.List(context.Background(), nil)
				if err == nil && resp.Header.Get("X-RateLimit-Remaining") == "" {
					err = errors.New("the answer says nothing of the requests that remain")
				}
				done <- err
			}()
			<-arrived
			holder.Hold(context.Background(), 30*time.Second) // as a 429 with Retry-After: 30 would
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			err = acquire(context.Background(), other)
			var apiErr *seoapi.APIError
			if !errors.As(err, &apiErr) || !errors.Is(err, seoapi.ErrRateLimited) || apiErr.RetryAfter < 20*time.Second {
				t.Errorf("Acquire after the stale answer = %v, want a refusal: the hold of 30 s stands", err)
			}
		})
	}
}
