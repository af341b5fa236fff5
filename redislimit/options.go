package redislimit

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/seoapi/seoapi-go"
)

// config is what the options set.
type config struct {
	perHour, perSecond int
	reserve            [2]int
	maxWait            time.Duration
	fallback           seoapi.Limiter
	logger             *slog.Logger
	errs               []error
}

// Option configures a Limiter.
type Option func(*config)

func (c *config) reject(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%w: redislimit: "+format, append([]any{seoapi.ErrInvalidArgument}, args...)...))
}

// WithLimits sets the budget: at most perHour requests in any rolling hour
// and perSecond in any rolling second, across the fleet. The default is
// the published 10 000 an hour and 50 a second. Every process sharing a
// name must use the same limits.
func WithLimits(perHour, perSecond int) Option {
	return func(c *config) {
		if perHour <= 0 || perSecond <= 0 {
			c.reject("WithLimits(%d, %d): limits must be positive", perHour, perSecond)
			return
		}
		c.perHour, c.perSecond = perHour, perSecond
	}
}

// WithReserve makes a Limiter for lower-priority work, such as a batch job
// sharing its key with a service: it lets a request go only while the
// fleet's budget of its name keeps perHour slots of the rolling hour and
// perSecond of the rolling second free for limiters without a reserve.
// Both are checked in the same step as the limits, on Redis's clock. A
// request the reserve holds back reserves no slot, so it takes no place
// in line ahead of the limiters without a reserve: it sleeps until the
// reserve would let it go and asks again, or is refused at once with
// seoapi.ErrRateLimited when its whole wait is longer than the max wait.
// A reserve must be smaller than the limits (WithLimits, in any order);
// New fails with seoapi.ErrInvalidArgument otherwise. Limiters without a
// reserve are unaffected: they may use the whole budget.
func WithReserve(perHour, perSecond int) Option {
	return func(c *config) {
		if perHour < 0 || perSecond < 0 {
			c.reject("WithReserve(%d, %d): a reserve cannot be negative", perHour, perSecond)
			return
		}
		c.reserve = [2]int{perHour, perSecond}
	}
}

// WithMaxWait sets the max wait of a call whose client set none
// (seoapi.WithMaxWait): a longer wait is refused at once with
// seoapi.ErrRateLimited, without reserving a slot. A client's own max wait
// always applies instead, longer or shorter. 0, the default, leaves
// seoapi.DefaultMaxWait.
func WithMaxWait(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.reject("WithMaxWait(%s): negative", d)
			return
		}
		c.maxWait = d
	}
}

// WithFallback sets the limiter used while Redis cannot be reached, for
// example seoapi.NewLimiter with this process's share of the limits. It is
// told the server's hold too. Without one, an Acquire that cannot reach
// Redis fails.
func WithFallback(l seoapi.Limiter) Option {
	return func(c *config) {
		if l == nil {
			c.reject("WithFallback: nil Limiter")
			return
		}
		c.fallback = l
	}
}

// WithLogger sets where the Limiter says that Redis cannot be reached and
// the fallback is in use (a Warn, once per outage) and that it is back (an
// Info). The default is slog.Default(). Nothing else is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.reject("WithLogger: nil Logger")
			return
		}
		c.logger = l
	}
}
