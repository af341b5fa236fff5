package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/seoapi/seoapi-go"
)

// hourGuard lengthens the rolling hour, as the built-in limiter does: a
// request counted against the hour just before our window opens arrives a
// little after we sent it.
const hourGuard = 2 * time.Second

// maxTransit is how late after its release a request is assumed to reach
// the server at the latest: until its answer, or its failure once that is
// later, it counts in the second until release + maxTransit + a second
// (and answerGuard). The core's built-in limiter assumes the same.
const maxTransit = time.Second

// answerGuard lengthens the second that a request counts after its answer
// or failure; it only absorbs timer and clock granularity. It is the
// core's secondGuard.
const answerGuard = 5 * time.Millisecond

// counts is how long after its release a request counts in the second
// until done says how it ended.
const counts = maxTransit + time.Second + answerGuard

// maxLate is how late after its slot a request may still go. Its second
// counts from the slot, so a request that goes late has that much less
// of maxTransit left to reach the server: one that comes back for its
// slot later (its sleep woke late, or its round trip to Redis was slow,
// as on a loaded machine) gives the slot back and asks again, and is
// counted from its new slot. The rest of maxTransit, 750 ms, is left for
// the request to reach the server once Redis let it go.
const maxLate = 250 * time.Millisecond

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

// sideTimeout bounds the round trips that run in a goroutine of their own
// and finish even when the caller's context has ended: giving a slot
// back, telling an answer, storing or lifting a hold.
const sideTimeout = time.Second

// maxNameLen bounds a budget's name.
const maxNameLen = 64

// Limiter is a seoapi.Limiter whose budget and server hold are kept in
// Redis and shared by every process using the same Redis and name. It is
// safe for concurrent use.
//
// A call waits for Redis only while its context lasts: each round trip
// runs in a goroutine of its own, and one the call stops waiting for
// finishes in the background (a slot it reserved is then given back).
// Round trips that need not hold a call up (telling how a request ended)
// never do; each background round trip ends within a second.
type Limiter struct {
	rdb       redis.UniversalClient
	name      string
	keys      []string // hour, hold, second
	perHour   int
	perSecond int
	reserve   [2]int        // WithReserve's slots of the hour and of the second
	maxWait   time.Duration // WithMaxWait's, for a client that set none; 0: none
	fallback  seoapi.Limiter
	logger    *slog.Logger

	reserveScript *redis.Script
	endScript     *redis.Script
	holdScript    *redis.Script
	liftScript    *redis.Script
	budgetScript  *redis.Script

	instance string        // member prefix, unique to this Limiter
	seq      atomic.Uint64 // member counter
	holdSeen atomic.Bool   // a hold may be in place, so a Lift is worth a round trip
	health   health
	side     sync.WaitGroup // the goroutines of round trips, for tests to wait on

	liftGrace time.Duration // liftGrace; tests shorten it
}

var _ seoapi.Limiter = (*Limiter)(nil)

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
		endScript:     redis.NewScript(endSource),
		holdScript:    redis.NewScript(holdSource),
		liftScript:    redis.NewScript(liftSource),
		budgetScript:  redis.NewScript(budgetSource),
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

// Acquire blocks until this process may send one request within the
// fleet's budget, and returns done, to be called once when the request
// was answered (true) or failed without an answer (false). Answered, the
// request counts in the fleet's rolling second until a second after that
// moment on Redis's clock; failed, until a second after the later of that
// moment and its release + 1 s, the latest a slow server may still read
// it (see the package documentation). done returns at once (its round
// trip runs in the background); the calls after the first do nothing.
//
// maxWait is the calling client's max wait; negative when it set none,
// and then WithMaxWait's applies, or else seoapi.DefaultMaxWait. A longer
// wait, or one ending after ctx's deadline, fails at once with an
// *seoapi.APIError matching seoapi.ErrRateLimited; Acquire fails with
// ctx's error when ctx ends, and with an *UnavailableError when Redis
// cannot be reached and there is no fallback.
func (l *Limiter) Acquire(ctx context.Context, maxWait time.Duration) (done func(answered bool), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := l.health.skipping(time.Now()); err != nil {
		return l.withoutRedis(ctx, err, maxWait)
	}
	member := l.instance + ":" + strconv.FormatUint(l.seq.Add(1), 36)
	down, err := l.waitSlot(ctx, member, l.limitFor(maxWait))
	if down != nil {
		l.wentDown(down)
		return l.withoutRedis(ctx, down, maxWait)
	}
	if err != nil {
		return nil, err
	}
	return l.doneFunc(member), nil
}

// maxWaitLimit is the max wait a call honours, and the setting it comes from.
type maxWaitLimit struct {
	d    time.Duration
	name string
}

// limitFor returns the client's max wait, or for a client that set none
// (negative) WithMaxWait's, or else seoapi.DefaultMaxWait.
func (l *Limiter) limitFor(client time.Duration) maxWaitLimit {
	switch {
	case client >= 0:
		return maxWaitLimit{client, "WithMaxWait"}
	case l.maxWait > 0:
		return maxWaitLimit{l.maxWait, "redislimit.WithMaxWait"}
	}
	return maxWaitLimit{seoapi.DefaultMaxWait, "WithMaxWait"}
}

// waitSlot reserves a slot for member and sleeps until its time, then
// asks again: the script lets it go unless a hold was stored meanwhile or
// it came back more than maxLate after its slot, and then reserves it a
// new slot as for a new request. A request that the reserve (WithReserve)
// holds back sleeps without a place in line and asks again. down is
// Redis's error, when it failed.
func (l *Limiter) waitSlot(ctx context.Context, member string, limit maxWaitLimit) (down, err error) {
	start := time.Now()
	for {
		waited := time.Since(start)
		r, err := l.reserveSlot(ctx, member, limit.d, waited)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return err, nil
		}
		l.cameBack()
		l.holdSeen.Store(r.held)
		if err := l.take(ctx, member, r, limit, waited); err != nil || r.reserved && r.delay == 0 {
			return nil, err
		}
	}
}

// take waits for r's delay, or refuses the wait; a reserved slot that
// will not be used is given back. A slot due now has nothing to refuse.
func (l *Limiter) take(ctx context.Context, member string, r reservation, limit maxWaitLimit, waited time.Duration) error {
	if r.delay == 0 {
		return nil
	}
	err := l.checkWait(ctx, r, limit, waited)
	if err == nil {
		err = sleep(ctx, r.delay)
	}
	if err != nil && r.reserved {
		l.giveBack(ctx, member)
	}
	return err
}

// checkWait refuses r's delay when the whole wait, from the first ask
// waited ago, is longer than the max wait, or when the delay would end
// after ctx's deadline. The script reserves nothing for such a delay.
func (l *Limiter) checkWait(ctx context.Context, r reservation, limit maxWaitLimit, waited time.Duration) error {
	reason := l.reason(r)
	if d := waited + r.delay; d > limit.d {
		return seoapi.RefuseWait(d, fmt.Sprintf("%s: wait of %s exceeds the max wait of %s (%s)", reason, d, limit.d, limit.name))
	}
	if deadline, ok := ctx.Deadline(); ok && time.Now().Add(r.delay).After(deadline) {
		return seoapi.RefuseWait(r.delay, fmt.Sprintf("%s: wait of %s would end after the context's deadline", reason, r.delay))
	}
	return ctx.Err()
}

// doneFunc returns the done func of the slot member: its first call moves
// the slot's end in the second to a second (and answerGuard) after Redis's
// now, sooner when answered, later when the request failed.
func (l *Limiter) doneFunc(member string) func(answered bool) {
	var called atomic.Bool
	return func(answered bool) {
		if called.Swap(true) || l.health.skipping(time.Now()) != nil {
			return
		}
		mode := 0 // failed
		if answered {
			mode = 1
		}
		l.goSide(func() {
			ctx, cancel := sideContext()
			defer cancel()
			if err := l.endScript.Run(ctx, l.rdb, []string{l.keys[0], l.keys[2]}, member, micros(time.Second+answerGuard), mode).Err(); err != nil {
				// The slot keeps the end its reservation gave it.
				l.wentDown(err)
			}
		})
	}
}

// reservation is what the reserve script answered.
type reservation struct {
	delay     time.Duration
	why       int64
	held      bool // the server's hold is in place
	reserved  bool // a slot was reserved, delay from now
	byReserve bool // the reserve holds the request back for delay; nothing reserved
}

// reason names the limit that asked for r's delay.
func (l *Limiter) reason(r reservation) string {
	switch {
	case r.why == reasonHold:
		return "server rate limit (fleet hold)"
	case r.why == reasonHour && r.byReserve:
		return fmt.Sprintf("fleet hourly limit less the reserve of %d (redislimit.WithReserve)", l.reserve[0])
	case r.why == reasonHour:
		return "fleet hourly limit"
	case r.why == reasonSecond && r.byReserve:
		return fmt.Sprintf("fleet per-second limit less the reserve of %d (redislimit.WithReserve)", l.reserve[1])
	case r.why == reasonSecond:
		return "fleet per-second limit"
	}
	return "fleet limit"
}

// reserveSlot runs the reserve script: one round trip, which the caller
// waits for only while ctx lasts. When ctx ends first, the script may
// still run: its slot is given back once it has. waited is how long the
// request has waited already.
func (l *Limiter) reserveSlot(ctx context.Context, member string, maxWait, waited time.Duration) (reservation, error) {
	var vals []int64
	var err error
	done := l.goSide(func() {
		vals, err = l.reserveScript.Run(ctx, l.rdb, l.keys,
			l.perHour, l.perSecond, l.reserve[0], l.reserve[1],
			micros(time.Hour+hourGuard), micros(counts),
			micros(acceptable(ctx, maxWait-waited)), member, micros(l.spacing()), micros(maxLate),
		).Int64Slice()
	})
	await(ctx, done)
	if ctx.Err() != nil {
		l.goSide(func() { <-done; l.remove(member) })
		return reservation{}, ctx.Err()
	}
	if err != nil {
		return reservation{}, err
	}
	if len(vals) != 5 {
		return reservation{}, fmt.Errorf("redislimit: reserve script answered %d values, want 5", len(vals))
	}
	return reservation{
		delay:     time.Duration(vals[0]) * time.Microsecond,
		why:       vals[1],
		held:      vals[2] == 1,
		reserved:  vals[3] == 1,
		byReserve: vals[4] == 1,
	}, nil
}

// spacing is the least time between two slots: half the per-second window
// (with its guard) shared evenly. A request counts until its answer,
// however bunched the arrivals, and slots spaced at exactly the steady
// rate could never catch up after a slow answer (each delays every later
// slot), while slots let go at once come back in bursts.
// BenchmarkFleetRate measured 0.92-0.94 of 50/s at the full spacing, 0.985
// at half.
func (l *Limiter) spacing() time.Duration {
	return (time.Second + answerGuard) / time.Duration(2*l.perSecond)
}

// acceptable is the longest delay worth reserving a slot for: what the
// max wait leaves, or less when ctx's deadline comes sooner.
func acceptable(ctx context.Context, d time.Duration) time.Duration {
	if deadline, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(deadline))
	}
	return max(d, 0)
}

func micros(d time.Duration) int64 { return d.Microseconds() }

// giveBack gives back a reserved slot that will not be used; the caller
// waits for it while ctx lasts.
func (l *Limiter) giveBack(ctx context.Context, member string) {
	await(ctx, l.goSide(func() { l.remove(member) }))
}

// remove removes member from the hour and the second, in one round trip.
// A failure leaves the slot taken, which only slows the fleet down.
func (l *Limiter) remove(member string) {
	ctx, cancel := sideContext()
	defer cancel()
	l.rdb.Pipelined(ctx, func(p redis.Pipeliner) error { //nolint:errcheck // see above
		p.ZRem(ctx, l.keys[0], member)
		p.ZRem(ctx, l.keys[2], member)
		return nil
	})
}

// Hold is told what a response said of the server's limit (see
// seoapi.Limiter). A hold (d > 0) is stored in Redis so that no process
// sharing the name sends before it ends; d == 0 ends it, and costs a
// round trip only when this process has seen a hold. The caller waits for
// the round trip while ctx lasts. The fallback is told too, so that it
// keeps the hold if Redis goes away.
//
// d == 0 ends only a hold stored at least a second before (liftGrace): a
// response that says requests remain may come from a request sent before
// the hold, and then carries older news. Hold is not told when that
// request was sent, so the second stands for it.
func (l *Limiter) Hold(ctx context.Context, d time.Duration) {
	if l.fallback != nil {
		l.fallback.Hold(ctx, d)
	}
	if l.health.skipping(time.Now()) != nil {
		return
	}
	switch {
	case d > 0:
		await(ctx, l.goSide(func() { l.storeHold(min(d, maxHold)) }))
	case l.holdSeen.Load():
		await(ctx, l.goSide(l.lift))
	}
}

func (l *Limiter) storeHold(d time.Duration) {
	ctx, cancel := sideContext()
	defer cancel()
	if err := l.holdScript.Run(ctx, l.rdb, l.keys[1:2], micros(d)).Err(); err != nil {
		l.wentDown(err)
		return
	}
	l.holdSeen.Store(true)
}

func (l *Limiter) lift() {
	ctx, cancel := sideContext()
	defer cancel()
	still, err := l.liftScript.Run(ctx, l.rdb, l.keys[1:2], micros(l.liftGrace)).Int64()
	if err != nil {
		l.wentDown(err)
		return
	}
	l.holdSeen.Store(still == 1)
}

// goSide runs f in a goroutine of its own and returns a channel closed
// when f has returned.
func (l *Limiter) goSide(f func()) <-chan struct{} {
	done := make(chan struct{})
	l.side.Add(1)
	go func() {
		defer l.side.Done()
		defer close(done)
		f()
	}()
	return done
}

// sideContext is the context of a round trip that finishes whether or
// not its caller still waits.
func sideContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), sideTimeout)
}

// await waits until done is closed or ctx ends.
func await(ctx context.Context, done <-chan struct{}) {
	select {
	case <-done:
	case <-ctx.Done():
	}
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

// UnavailableError is the error of an Acquire that could not reach Redis
// and had no fallback. Nothing was sent. It matches seoapi.ErrConnection, and
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
