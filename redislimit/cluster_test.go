package redislimit

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
)

// TestClusterKeepsOneBudget runs every command the Limiter sends against a
// three-master Redis Cluster through go-redis's ClusterClient: the scripts
// touch several keys of a name, which Cluster allows only in one hash
// slot (a CROSSSLOT error would make each of these fail as Redis down).
func TestClusterKeepsOneBudget(t *testing.T) {
	t.Parallel()
	cluster := startCluster(t)
	rdb := cluster.Client(t)
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(t *testing.T, l *Limiter)
	}{
		{"Acquire and answered", func(t *testing.T, l *Limiter) {
			done, err := l.Acquire(ctx, -1)
			if err != nil {
				t.Fatal(err)
			}
			done(true)
			if n := len(scores(t, rdb, l.name)); n != 1 {
				t.Errorf("%d slots, want 1", n)
			}
		}},
		{"Acquire and failed", func(t *testing.T, l *Limiter) {
			done, err := l.Acquire(ctx, -1)
			if err != nil {
				t.Fatal(err)
			}
			done(false)
		}},
		{"hold and lift", func(t *testing.T, l *Limiter) {
			l.Hold(ctx, time.Hour)
			err := acquire(ctx, l)
			if !errors.Is(err, seoapi.ErrRateLimited) {
				t.Fatalf("Acquire during the hold = %v, want ErrRateLimited", err)
			}
			l.liftGrace = 0
			l.Hold(ctx, 0)
			if err := acquire(ctx, l); err != nil {
				t.Fatalf("Acquire after the lift: %v", err)
			}
		}},
		{"Budget", func(t *testing.T, l *Limiter) {
			checkBudget(t, l, seoapi.Budget{PerHour: 1, PerSecond: 1000})
		}},
		{"a refusal reserves nothing", func(t *testing.T, l *Limiter) {
			for range 2 {
				if err := acquire(ctx, l); err != nil && !errors.Is(err, seoapi.ErrRateLimited) {
					t.Fatal(err)
				}
			}
			if n := len(scores(t, rdb, l.name)); n != 1 {
				t.Errorf("%d slots after a refusal, want the hour's 1", n)
			}
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l := newTestLimiter(t, rdb, "cluster-"+string(rune('a'+i)), WithLimits(1, 1000), WithMaxWait(time.Minute))
			tc.run(t, l)
			l.health.mu.Lock()
			down, err := l.health.down, l.health.err
			l.health.mu.Unlock()
			if down {
				t.Errorf("a command failed on the cluster: %v", err)
			}
			// The keys of one name share a hash slot.
			for _, key := range l.keys[1:] {
				if a, b := rdb.ClusterKeySlot(ctx, l.keys[0]).Val(), rdb.ClusterKeySlot(ctx, key).Val(); a != b {
					t.Errorf("%s is in slot %d, %s in %d", l.keys[0], a, key, b)
				}
			}
		})
	}
}
