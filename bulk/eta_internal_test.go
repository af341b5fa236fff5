package bulk

import (
	"testing"
	"time"

	"github.com/seoapi/seoapi-go"
	"github.com/stretchr/testify/assert"
)

func TestBudgetETA(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	published := seoapi.Budget{PerHour: 10000, PerSecond: 50}
	cases := []struct {
		name string
		b    seoapi.Budget
		n    int
		want time.Duration
	}{
		{"nothing to send", published, 0, 0},
		{"within the hour: the per-second rate", published, 100, 2 * time.Second},
		{"the whole hour", published, 10000, 200 * time.Second},
		{"one more than the hour has left", seoapi.Budget{PerHour: 10000, PerSecond: 50, UsedHour: 9990}, 11, time.Hour},
		{"two hours beyond what is left", seoapi.Budget{PerHour: 100, PerSecond: 50, UsedHour: 100}, 200, 2 * time.Hour},
		{"the server's hold first", seoapi.Budget{PerHour: 10000, PerSecond: 50, HoldUntil: now.Add(30 * time.Second)}, 50, 31 * time.Second},
		{"a hold that has ended", seoapi.Budget{PerHour: 10000, PerSecond: 50, HoldUntil: now.Add(-time.Second)}, 50, time.Second},
		{"no per-second limit", seoapi.Budget{PerHour: 100}, 50, 0},
		{"no limits", seoapi.Budget{}, 50, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, budgetETA(tc.b, tc.n, now))
		})
	}
}
