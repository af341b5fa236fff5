package seoapi

import (
	"context"
	"time"
)

// Budget is what a client's limiter has left: its limits, the requests it
// counts in the current rolling hour and second, and the end of the
// server's hold, if one is set. Asking for it sends no request.
type Budget struct {
	PerHour, PerSecond   int
	UsedHour, UsedSecond int
	// HoldUntil is when the server's hold ends; zero when there is none.
	HoldUntil time.Time
}

// BudgetLimiter is a Limiter that can tell its Budget. The built-in
// limiter (NewLimiter) is one; a Limiter given with WithLimiter may
// implement it so that Client.Budget works with it too.
type BudgetLimiter interface {
	Budget(ctx context.Context) (Budget, error)
}

// Budget returns the budget of the client's limiter. It fails with
// ErrInvalidArgument when the limiter cannot tell one: the limiter is off
// (WithoutRateLimit), or a Limiter given with WithLimiter does not
// implement BudgetLimiter.
func (c *Client) Budget(ctx context.Context) (Budget, error) {
	if ctx == nil {
		return Budget{}, invalidArgument("nil context")
	}
	return c.transport.limiter.Budget(ctx)
}
