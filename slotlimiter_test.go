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

// turnLog is what a SlotLimiter and the server behind it saw, in order.
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

// slotLimiter is a SlotLimiter written outside the core, as a fleet's is:
// it logs each Acquire and each answered, counts how often each answered
// was called, and refuses (with CheckWait, as a fleet limiter does) the
// turns numbered in refuse.
type slotLimiter struct {
	log    *turnLog
	refuse map[int]bool // 1-based turns to refuse

	mu       sync.Mutex
	turns    int
	answered []int // calls of each granted turn's answered
}

func (l *slotLimiter) Wait(context.Context) error {
	panic("the client calls Acquire on a SlotLimiter, never Wait")
}

func (l *slotLimiter) Acquire(ctx context.Context) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.turns++
	if l.refuse[l.turns] {
		l.log.add("refused")
		// A wait longer than any max wait: CheckWait refuses it.
		return func() { panic("answered called for a refused Acquire") }, seoapi.CheckWait(ctx, 24*time.Hour, 0, "slot limit")
	}
	l.log.add("acquired")
	i := len(l.answered)
	l.answered = append(l.answered, 0)
	return func() {
		l.mu.Lock()
		l.answered[i]++
		l.mu.Unlock()
		l.log.add("answered")
	}, nil
}

// answeredCalls returns how often each granted turn's answered was called.
func (l *slotLimiter) answeredCalls() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.answered...)
}

// feedbackSlotLimiter is both a SlotLimiter and a FeedbackLimiter, as
// redislimit's limiter is.
type feedbackSlotLimiter struct {
	slotLimiter
	told int
}

func (l *feedbackSlotLimiter) Feedback(context.Context, seoapi.RateFeedback) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.told++
}

// TestSlotLimiterIsToldEachAnswer: the client calls Acquire, not Wait, on
// a SlotLimiter, and calls the answered it returned exactly once after
// each attempt it let go, once the response arrived or the attempt failed:
// for retried attempts, failed attempts and each hop of a redirect, never
// for a refused Acquire. It holds for a SlotLimiter that is also a
// FeedbackLimiter.
func TestSlotLimiterIsToldEachAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers []string // what the server does for each request it sees
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
			want:    []string{"acquired", "served", "answered", "acquired", "served", "answered"},
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
		for _, withFeedback := range []bool{false, true} {
			name := tt.name
			if withFeedback {
				name += "/also a FeedbackLimiter"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				log := &turnLog{}
				var mu sync.Mutex
				seen := 0
				rec := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					answer := tt.answers[min(seen, len(tt.answers)-1)]
					seen++
					mu.Unlock()
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
				slots := &slotLimiter{log: log, refuse: tt.refuse}
				var lim seoapi.Limiter = slots
				var fb *feedbackSlotLimiter
				if withFeedback {
					fb = &feedbackSlotLimiter{slotLimiter: slotLimiter{log: log, refuse: tt.refuse}}
					slots, lim = &fb.slotLimiter, fb
				}
				c := newLimitedClient(t, rec.srv.URL, lim)

				_, _, err := c.Workspaces.List(context.Background(), nil)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tt.want, log.all(), "each answered after its response, none for a refused Acquire")
				for i, n := range slots.answeredCalls() {
					assert.Equal(t, 1, n, "answered of turn %d called %d times", i+1, n)
				}
				if withFeedback && tt.wantErr == nil {
					fb.mu.Lock()
					assert.Positive(t, fb.told, "the FeedbackLimiter is still told the rate headers")
					fb.mu.Unlock()
				}
			})
		}
	}
}

// TestSlotLimiterConcurrentCalls: under concurrent calls every granted
// turn's answered is called exactly once.
func TestSlotLimiterConcurrentCalls(t *testing.T) {
	t.Parallel()
	rec := newRecorder(t, respond(http.StatusOK, `[]`))
	slots := &slotLimiter{log: &turnLog{}}
	c := newLimitedClient(t, rec.srv.URL, slots)
	const calls = 64
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			_, _, err := c.Workspaces.List(context.Background(), nil)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	got := slots.answeredCalls()
	require.Len(t, got, calls)
	for i, n := range got {
		assert.Equal(t, 1, n, "answered of turn %d", i+1)
	}
	assert.Len(t, rec.requests(), calls)
}
