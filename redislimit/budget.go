package redislimit

import (
	"context"
	"fmt"
	"time"

	"github.com/seoapi/seoapi-go"
)

// Budget returns the fleet's budget as this Limiter sees it, read in one
// round trip to Redis: its limits less its reserve (WithReserve), the
// requests every process sharing the name counts in the current rolling
// hour and second (slots reserved for a moment still to come included),
// and when the server's hold ends, on this machine's clock. It sends
// nothing to the API, and waits for Redis only while ctx lasts.
//
// While Redis cannot be reached, Budget returns the fallback's budget,
// or without a fallback an *UnavailableError.
func (l *Limiter) Budget(ctx context.Context) (seoapi.Budget, error) {
	if err := ctx.Err(); err != nil {
		return seoapi.Budget{}, err
	}
	if err := l.health.skipping(time.Now()); err != nil {
		return l.budgetWithoutRedis(ctx, err)
	}
	var vals []int64
	var err error
	done := l.goSide(func() {
		vals, err = l.budgetScript.Eval(ctx, l.rdb, l.keys, micros(time.Hour+hourGuard)).Int64Slice()
	})
	await(ctx, done)
	switch {
	case ctx.Err() != nil:
		return seoapi.Budget{}, ctx.Err()
	case err != nil:
		l.wentDown(err)
		return l.budgetWithoutRedis(ctx, err)
	case len(vals) != 3:
		return seoapi.Budget{}, fmt.Errorf("redislimit: budget script answered %d values, want 3", len(vals))
	}
	l.cameBack()
	b := seoapi.Budget{
		PerHour:    l.perHour - l.reserve[0],
		PerSecond:  l.perSecond - l.reserve[1],
		UsedHour:   int(vals[0]),
		UsedSecond: int(vals[1]),
	}
	if vals[2] > 0 {
		b.HoldUntil = time.Now().Add(time.Duration(vals[2]) * time.Microsecond)
	}
	return b, nil
}

// budgetWithoutRedis is Budget while Redis cannot be reached.
func (l *Limiter) budgetWithoutRedis(ctx context.Context, err error) (seoapi.Budget, error) {
	if l.fallback != nil {
		return l.fallback.Budget(ctx)
	}
	return seoapi.Budget{}, &UnavailableError{Name: l.name, Err: err}
}
