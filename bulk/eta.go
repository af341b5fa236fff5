package bulk

import (
	"context"
	"time"

	"github.com/seoapi/seoapi-go"
)

// eta is how long n requests take on the client's budget now. When the
// client cannot tell its budget (its limiter is off, or its Budget
// fails) the published limits stand in: the
// server keeps to them whatever the client does.
func (j *Job) eta(ctx context.Context, n int) time.Duration {
	b, err := j.client.Budget(ctx)
	if err != nil {
		b = seoapi.Budget{PerHour: seoapi.DefaultRequestsPerHour, PerSecond: seoapi.DefaultRequestsPerSecond}
	}
	return budgetETA(b, n, time.Now())
}

// budgetETA is how long n requests take on budget b at now: the server's
// hold, then n requests at PerSecond a second; when n is more than the
// hour has left (PerHour-UsedHour), at least an hour for each PerHour
// requests beyond it. A limit of 0 or less does not limit.
func budgetETA(b seoapi.Budget, n int, now time.Time) time.Duration {
	if n <= 0 {
		return 0
	}
	var hold, d time.Duration
	if b.HoldUntil.After(now) {
		hold = b.HoldUntil.Sub(now)
	}
	if b.PerSecond > 0 {
		d = time.Duration(n) * time.Second / time.Duration(b.PerSecond)
	}
	if left := max(b.PerHour-b.UsedHour, 0); b.PerHour > 0 && n > left {
		hours := (n - left + b.PerHour - 1) / b.PerHour
		d = max(d, time.Duration(hours)*time.Hour)
	}
	return hold + d
}
