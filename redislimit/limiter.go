package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
)

// hourGuard lengthens the rolling hour, as the built-in limiter does: a
// request counted against the hour just before our window opens arrives a
// little after we sent it.
const hourGuard = 2 * time.Second

// secondGuard lengthens the rolling second for a request counted from its
// release: one let go by Wait, whose answer the Limiter never hears of. It
// is the core's (unexported) releaseGuard: arrivals perSecond requests
// apart may come closer together than their releases by up to the guard.
const secondGuard = 15 * time.Millisecond

// maxTransit is how late after its release a request let go by Acquire is
// assumed to reach the server at the latest, while its answer has not come
// back: until then it counts in the second until release + maxTransit + a
// second (and answerGuard). The core's built-in limiter assumes the same.
const maxTransit = time.Second

// answerGuard lengthens the second that a request let go by Acquire counts
// after its answer, which is when the server last counted it; it only
// absorbs timer and clock granularity. It is the core's secondGuard.
const answerGuard = 5 * time.Millisecond

// maxHold is the longest hold the server can ask for, as in the
// core: the longest published window and its guard.
const maxHold = time.Hour + hourGuard

// liftGrace is how old a hold must be before a response saying requests
// remain may end it; a younger hold was most likely set after that
// response's request had already gone out.
const liftGrace = time.Second

// probeEvery is how long after a failure Redis is left alone: calls in
// the meantime go to the fallback, or fail, at once instead of each
// waiting for a dial timeout.
const probeEvery = time.Second

// rejoinOutages is how soon after an outage another one is taken for the
// same, and not announced again.
const rejoinOutages = time.Minute

// sideTimeout bounds the round trips that are not part of a Wait's own
// work (giving a slot back, storing or lifting a hold), which run even
// when the caller's context has ended.
const sideTimeout = 2 * time.Second

// maxNameLen bounds a budget's name.
const maxNameLen = 64

// Limiter is a seoapi.SlotLimiter and seoapi.FeedbackLimiter whose budget
// is kept in Redis and shared by every process using the same Redis and
// name. It is safe for concurrent use and starts no goroutines.
type Limiter struct {
	rdb       redis.UniversalClient
	name      string
	keys      []string // hour, hold, second
	perHour   int
	perSecond int
	reserve   [2]int // WithReserve's slots of the hour and of the second
	maxWait   time.Duration
	fallback  seoapi.Limiter
	logger    *slog.Logger

	reserveScript *redis.Script
	answerScript  *redis.Script
	holdScript    *redis.Script
	liftScript    *redis.Script

	instance string        // member prefix, unique to this Limiter
	seq      atomic.Uint64 // member counter
	holdSeen atomic.Bool   // a hold may be in place, so a Lift is worth a round trip
	health   health
	local    localHold // the server's hold, for a fallback that cannot keep it

	liftGrace time.Duration // liftGrace; tests shorten it
}

var (
	_ seoapi.SlotLimiter     = (*Limiter)(nil)
	_ seoapi.FeedbackLimiter = (*Limiter)(nil)
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
// Both are checked in the same step as the limits, on Redis's clock. When
// the reserve is reached the Limiter waits, or refuses at once with
// seoapi.ErrRateLimited when the wait is longer than the max wait, exactly
// as at its limits. A reserve must be smaller than the limits (WithLimits,
// in any order); New fails with seoapi.ErrInvalidArgument otherwise.
// Limiters without a reserve are unaffected: they may use the whole budget.
func WithReserve(perHour, perSecond int) Option {
	return func(c *config) {
		if perHour < 0 || perSecond < 0 {
			c.reject("WithReserve(%d, %d): a reserve cannot be negative", perHour, perSecond)
			return
		}
		c.reserve = [2]int{perHour, perSecond}
	}
}

// WithMaxWait sets the longest wait Wait accepts (default 60 s, as the
// core's WithMaxWait); a longer one is refused at once with ErrRateLimited,
// without reserving a slot. The calling Client's own WithMaxWait, when
// smaller, applies too; 0 leaves the bound to each Client, as
// seoapi.NewLimiter does (a refused slot is then reserved and given back:
// one more round trip).
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
// example seoapi.NewLimiter with this process's share of the limits.
// Without one, a Wait that cannot reach Redis fails.
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

// New returns a Limiter shared by every process that uses the same Redis
// and the same name. name identifies one budget (one API key) and must
// never be the key itself (see the package documentation). New does not
// contact Redis. Invalid arguments fail with seoapi.ErrInvalidArgument.
func New(rdb redis.UniversalClient, name string, opts ...Option) (*Limiter, error) {
	if rdb == nil {
		return nil, fmt.Errorf("%w: redislimit.New: nil Redis client", seoapi.ErrInvalidArgument)
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	cfg := config{
		perHour:   seoapi.DefaultRequestsPerHour,
		perSecond: seoapi.DefaultRequestsPerSecond,
		maxWait:   seoapi.DefaultMaxWait,
		logger:    slog.Default(),
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	if r := cfg.reserve; len(cfg.errs) == 0 && (r[0] >= cfg.perHour || r[1] >= cfg.perSecond) {
		cfg.reject("WithReserve(%d, %d): a reserve must be smaller than the limits (%d an hour, %d a second)",
			r[0], r[1], cfg.perHour, cfg.perSecond)
	}
	if len(cfg.errs) > 0 {
		return nil, cfg.errs[0]
	}
	instance, err := newInstanceID()
	if err != nil {
		return nil, err
	}
	prefix := "seoapi:{" + name + "}:"
	return &Limiter{
		rdb:           rdb,
		name:          name,
		keys:          []string{prefix + "w", prefix + "hold", prefix + "s"},
		perHour:       cfg.perHour,
		perSecond:     cfg.perSecond,
		reserve:       cfg.reserve,
		maxWait:       cfg.maxWait,
		fallback:      cfg.fallback,
		logger:        cfg.logger,
		reserveScript: redis.NewScript(reserveSource),
		answerScript:  redis.NewScript(answerSource),
		holdScript:    redis.NewScript(holdSource),
		liftScript:    redis.NewScript(liftSource),
		instance:      instance,
		health:        health{probeEvery: probeEvery, rejoin: rejoinOutages},
		liftGrace:     liftGrace,
	}, nil
}

func newInstanceID() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("redislimit: random member prefix: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Wait blocks until this process may send one request within the fleet's
// budget. It fails at once with an *seoapi.APIError matching
// seoapi.ErrRateLimited when the wait would exceed the max wait or the
// context's deadline, with ctx's error when ctx ends, and with an
// *UnavailableError when Redis cannot be reached and there is no fallback.
//
// The Limiter never hears when a request let go by Wait was answered, so
// the request counts in the fleet's rolling second from its release, with
// a wider guard (see the package documentation). A seoapi.Client calls
// Acquire instead.
func (l *Limiter) Wait(ctx context.Context) error {
	_, err := l.acquire(ctx, false)
	return err
}

// Acquire waits as Wait does, and returns answered, to be called exactly
// once when the request's response arrived or the request failed (never
// when Acquire failed): the request then counts in the fleet's rolling
// second until a second after that moment on Redis's clock, instead of a
// second after its release plus the longest transit assumed (see the
// package documentation). answered costs one round trip to Redis; it is
// safe to call more than once and from any goroutine (the calls after the
// first do nothing). A seoapi.Client calls Acquire and answered itself.
func (l *Limiter) Acquire(ctx context.Context) (answered func(), err error) {
	return l.acquire(ctx, true)
}

// acquire is Wait, or Acquire when answered is true: then the request
// counts in the second as counts says, and the returned func tells the
// answer.
func (l *Limiter) acquire(ctx context.Context, answered bool) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := l.health.skipping(time.Now()); err != nil {
		return l.withoutRedis(ctx, err, answered)
	}
	member := l.instance + ":" + strconv.FormatUint(l.seq.Add(1), 36)
	r, err := l.reserveSlot(ctx, member, answered)
	if err != nil {
		if ctx.Err() != nil {
			// The script may have run before ctx ended; its slot is not ours.
			l.giveBack(ctx, member)
			return nil, ctx.Err()
		}
		l.wentDown(err)
		return l.withoutRedis(ctx, err, answered)
	}
	l.cameBack()
	l.holdSeen.Store(r.held)
	if err := l.take(ctx, member, r); err != nil {
		return nil, err
	}
	if !answered {
		return nil, nil
	}
	return l.answerer(member), nil
}

// take waits for a reserved slot, or refuses the wait; a slot that will
// not be used is given back.
func (l *Limiter) take(ctx context.Context, member string, r reservation) error {
	reason := l.reason(r)
	err := seoapi.CheckWait(ctx, r.delay, l.maxWait, reason)
	if err == nil && !r.reserved {
		// The script refused by the limiter's own bound; CheckWait, asked a
		// moment later, can only differ by rounding.
		err = seoapi.RefuseWait(r.delay, fmt.Sprintf("%s: wait of %s exceeds the max wait of %s (redislimit.WithMaxWait)", reason, r.delay, l.maxWait))
	}
	if err == nil {
		err = sleep(ctx, r.delay)
	}
	if err != nil && r.reserved {
		l.giveBack(ctx, member)
	}
	return err
}

// answerer returns the answered func of the slot member: the first call
// moves the slot's end in the second to a second (and answerGuard) after
// Redis's now, when that is sooner.
func (l *Limiter) answerer(member string) func() {
	var called atomic.Bool
	return func() {
		if called.Swap(true) || l.health.skipping(time.Now()) != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), sideTimeout)
		defer cancel()
		if err := l.answerScript.Run(ctx, l.rdb, l.keys[2:3], member, micros(time.Second+answerGuard)).Err(); err != nil {
			// The slot keeps the end its reservation gave it.
			l.wentDown(err)
		}
	}
}

// reservation is what the reserve script answered.
type reservation struct {
	delay    time.Duration
	why      int64
	held     bool
	reserved bool
}

// reason names the limit that asked for r's delay.
func (l *Limiter) reason(r reservation) string {
	switch r.why {
	case reasonHold:
		return "server rate limit (fleet hold)"
	case reasonHour:
		if l.reserve[0] > 0 {
			return fmt.Sprintf("fleet hourly limit less the reserve of %d (redislimit.WithReserve)", l.reserve[0])
		}
		return "fleet hourly limit"
	case reasonSecond:
		if l.reserve[1] > 0 {
			return fmt.Sprintf("fleet per-second limit less the reserve of %d (redislimit.WithReserve)", l.reserve[1])
		}
		return "fleet per-second limit"
	}
	return "fleet limit"
}

// reserveSlot runs the reserve script: one round trip. answered says the
// request is let go by Acquire, and so counts in the second and is spaced
// as counts and spacing say for it.
func (l *Limiter) reserveSlot(ctx context.Context, member string, answered bool) (reservation, error) {
	vals, err := l.reserveScript.Run(ctx, l.rdb, l.keys,
		l.perHour-l.reserve[0], l.perSecond-l.reserve[1],
		micros(time.Hour+hourGuard), micros(counts(answered)),
		micros(l.acceptable(ctx)), member, micros(l.spacing(answered)),
	).Int64Slice()
	if err != nil {
		return reservation{}, err
	}
	if len(vals) != 4 {
		return reservation{}, fmt.Errorf("redislimit: reserve script answered %d values, want 4", len(vals))
	}
	return reservation{
		delay:    time.Duration(vals[0]) * time.Microsecond,
		why:      vals[1],
		held:     vals[2] == 1,
		reserved: vals[3] == 1,
	}, nil
}

// counts is how long after its release a request counts in the second:
// until maxTransit and a second (and answerGuard) after it, or a second
// after its answer if that is sooner, for a request let go by Acquire
// (answered); a second and secondGuard for one let go by Wait.
func counts(answered bool) time.Duration {
	if answered {
		return maxTransit + time.Second + answerGuard
	}
	return time.Second + secondGuard
}

// spacing is the least time between two slots. For Wait, it is the
// per-second window (with its guard) shared evenly: the fleet's steady
// rate is the same as when each window is filled at once, but its
// requests do not arrive in bursts from several processes together, which
// queue at the server and arrive bunched up by more than the guard. For
// Acquire it is half that: a request counts until its answer, however
// bunched the arrivals, and slots spaced at exactly the steady rate could
// never catch up after a slow answer (each delays every later slot), while
// slots let go at once come back in bursts. BenchmarkFleetRate measured
// 0.92-0.94 of 50/s at the full spacing, 0.985 at half.
func (l *Limiter) spacing(answered bool) time.Duration {
	if answered {
		return (time.Second + answerGuard) / time.Duration(2*l.perSecond)
	}
	return (time.Second + secondGuard) / time.Duration(l.perSecond)
}

// acceptable is the longest delay worth reserving a slot for: the max
// wait (when 0, the longest a slot can be away), or less when ctx's
// deadline comes sooner.
func (l *Limiter) acceptable(ctx context.Context) time.Duration {
	d := l.maxWait
	if d == 0 {
		d = 2 * maxHold
	}
	if deadline, ok := ctx.Deadline(); ok {
		d = max(min(d, time.Until(deadline)), 0)
	}
	return d
}

func micros(d time.Duration) int64 { return d.Microseconds() }

// giveBack removes a reserved slot that will not be used from the hour
// and the second, in one round trip. It runs even when ctx has ended; a
// failure leaves the slot taken, which only slows the fleet down.
func (l *Limiter) giveBack(ctx context.Context, member string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sideTimeout)
	defer cancel()
	l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error { //nolint:errcheck // see above
		p.ZRem(ctx, l.keys[0], member)
		p.ZRem(ctx, l.keys[2], member)
		return nil
	})
}

// Feedback is told what a response said about the rate limit. A hold is
// stored in Redis so that no process sharing the name sends before it
// ends; a lift ends it, and costs a round trip only when this process has
// seen a hold. A fallback that is a seoapi.FeedbackLimiter is told too, so
// that it keeps the hold if Redis goes away.
func (l *Limiter) Feedback(ctx context.Context, f seoapi.RateFeedback) {
	if fb, ok := l.fallback.(seoapi.FeedbackLimiter); ok {
		fb.Feedback(ctx, f)
	} else if l.fallback != nil {
		l.local.apply(f, time.Now(), l.liftGrace)
	}
	switch {
	case f.Hold > 0:
		l.storeHold(ctx, min(f.Hold, maxHold))
	case f.Lift && l.holdSeen.Load():
		l.lift(ctx)
	}
}

func (l *Limiter) storeHold(ctx context.Context, d time.Duration) {
	if l.health.skipping(time.Now()) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sideTimeout)
	defer cancel()
	if err := l.holdScript.Run(ctx, l.rdb, l.keys[1:2], micros(d)).Err(); err != nil {
		l.wentDown(err)
		return
	}
	l.holdSeen.Store(true)
}

func (l *Limiter) lift(ctx context.Context) {
	if l.health.skipping(time.Now()) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sideTimeout)
	defer cancel()
	still, err := l.liftScript.Run(ctx, l.rdb, l.keys[1:2], micros(l.liftGrace)).Int64()
	if err != nil {
		l.wentDown(err)
		return
	}
	l.holdSeen.Store(still == 1)
}

// sleep waits for d or until ctx ends, whichever is first.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// UnavailableError is the error of a Wait that could not reach Redis and
// had no fallback. Nothing was sent. It matches seoapi.ErrConnection, and
// the error from Redis stays reachable with errors.As and errors.Is.
type UnavailableError struct {
	Name string // the budget's name
	Err  error  // what Redis, or the connection to it, said
}

// Error says that Redis cannot be reached and that nothing was sent.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("redislimit: Redis cannot be reached for budget %q, so nothing was sent: %v", e.Name, e.Err)
}

// Unwrap returns seoapi.ErrConnection and the error from Redis.
func (e *UnavailableError) Unwrap() []error {
	return []error{seoapi.ErrConnection, e.Err}
}
