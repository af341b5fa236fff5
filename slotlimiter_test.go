package seoapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// turnLog is what a Limiter and the server behind it saw, in order.
type turnLog struct {
	mu     sync.Mutex
	events []string
}

func (l *turnLog) add(e string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *turnLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.events...)
}

// slotLimiter is a Limiter written outside the core, as a fleet's is: it
// logs each Acquire and what each done said, counts how often each done
// was called, refuses the turns numbered in refuse, and counts the holds
// it is told.
type slotLimiter struct {
	log    *turnLog
	refuse map[int]bool // 1-based turns to refuse

	mu    sync.Mutex
	turns int
	done  []int // calls of each granted turn's done
	told  int
}

func (l *slotLimiter) Acquire(context.Context, time.Duration) (func(bool), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turns++
	if l.refuse[l.turns] {
		l.log.add("refused")
		return nil, seoapi.RefuseWait(24*time.Hour, "slot limit: too long")
	}
	l.log.add("acquired")
	i := len(l.done)
	l.done = append(l.done, 0)
	return func(answered bool) {
		l.mu.Lock()
		l.done[i]++
		l.mu.Unlock()
		l.log.add(map[bool]string{true: "answered", false: "no answer"}[answered])
	}, nil
}

func (l *slotLimiter) Hold(context.Context, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.told++
}

func (l *slotLimiter) Budget(context.Context) (seoapi.Budget, error) { return seoapi.Budget{}, nil }

// doneCalls returns how often each granted turn's done was called.
func (l *slotLimiter) doneCalls() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.done...)
}

// TestLimiterIsToldEachAnswer: the client calls the done a Limiter's
// Acquire returned exactly once after each attempt it let go, saying
// whether a response arrived: for retried attempts, each hop of a
// redirect, an attempt whose connection dropped and one that timed out
// (no answer), never for a refused Acquire.
func TestLimiterIsToldEachAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers []string // what the server does for each request it sees
		opts    []seoapi.Option
		refuse  map[int]bool
		wantErr error
		want    []string
	}{
		{
			name:    "one attempt",
			answers: []string{"ok"},
			want:    []string{"acquired", "served", "answered"},
		},
		{
			name:    "retried after a 500",
			answers: []string{"500", "ok"},
			want:    []string{"acquired", "served", "answered", "acquired", "served", "answered"},
		},
		{
			name:    "an attempt whose connection dropped",
			answers: []string{"drop", "ok"},
			want:    []string{"acquired", "served", "no answer", "acquired", "served", "answered"},
		},
		{
			name:    "an attempt that timed out",
			answers: []string{"hang"},
			opts:    []seoapi.Option{seoapi.WithHTTPClient(&http.Client{Timeout: 100 * time.Millisecond}), seoapi.WithMaxRetries(0)},
			wantErr: seoapi.ErrConnection,
			want:    []string{"acquired", "no answer"},
		},
		{
			name:    "each hop of a redirect",
			answers: []string{"redirect", "ok"},
			want:    []string{"acquired", "served", "answered", "acquired", "served", "answered"},
		},
		{
			name:    "refused",
			answers: []string{"ok"},
			refuse:  map[int]bool{1: true},
			wantErr: seoapi.ErrRateLimited,
			want:    []string{"refused"},
		},
		{
			// The call ends with the last answer the server gave.
			name:    "refused before the retry",
			answers: []string{"500", "ok"},
			refuse:  map[int]bool{2: true},
			wantErr: seoapi.ErrServer,
			want:    []string{"acquired", "served", "answered", "refused"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := &turnLog{}
			var mu sync.Mutex
			seen := 0
			rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				answer := tt.answers[min(seen, len(tt.answers)-1)]
				seen++
				mu.Unlock()
				if answer == "hang" {
					<-r.Context().Done() // until the client gives up
					return
				}
				log.add("served")
				switch answer {
				case "500":
					respond(http.StatusInternalServerError, `{"error":"down"}`)(w, r)
				case "drop":
					hijackWrite(w, "")
				case "redirect":
					w.Header().Set("Location", strings.Replace(r.URL.Path, "workspaces", "moved", 1))
					w.WriteHeader(http.StatusFound)
				default:
					respond(http.StatusOK, `[{"id":"ws_1"}]`, "X-RateLimit-Remaining", "9")(w, r)
				}
			})
			lim := &slotLimiter{log: log, refuse: tt.refuse}
			c := newLimitedClient(t, rec.srv.URL, lim, tt.opts...)

			_, _, err := c.Workspaces.List(context.Background(), nil)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, log.all(), "each done after its response or failure, none for a refused Acquire")
			for i, n := range lim.doneCalls() {
				assert.Equal(t, 1, n, "done of turn %d called %d times", i+1, n)
			}
			if tt.wantErr == nil {
				lim.mu.Lock()
				assert.Positive(t, lim.told, "the Limiter is told the rate headers")
				lim.mu.Unlock()
			}
		})
	}
}

// TestLimiterConcurrentCalls: under concurrent calls every granted turn's
// done is called exactly once.
func TestLimiterConcurrentCalls(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(http.StatusOK, `[]`))
	lim := &slotLimiter{log: &turnLog{}}
	c := newLimitedClient(t, rec.srv.URL, lim)
	const calls = 64
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			_, _, err := c.Workspaces.List(context.Background(), nil)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got := lim.doneCalls()
	require.Len(t, got, calls)
	for i, n := range got {
		assert.Equal(t, 1, n, "done of turn %d", i+1)
	}
	assert.Len(t, rec.requests(), calls)
}
