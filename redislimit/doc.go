// Package redislimit keeps a fleet of processes that share one API key
// inside the published rate limits, by keeping the budget in Redis.
//
// Every Client paces itself, but the limits belong to the key: three
// replicas each pacing at the limit send three times the limit. A Limiter
// from New is shared by every process that uses the same Redis and the
// same name:
//
//	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
//	lim, err := redislimit.New(rdb, "crawler-prod")
//	...
//	client, err := seoapi.NewClient(baseURL, key, seoapi.WithLimiter(lim))
//
// # Windows
//
// At most perHour requests go out in any rolling hour and perSecond in any
// rolling second, across all processes sharing (Redis, name). Both
// windows are a little longer than the server's, by the guards the
// built-in limiter uses for a request it counts from its release (a server
// counts a request when it arrives, a little after it was sent): 2 s on
// the hour and 15 ms on the second. Slots are also spaced
// evenly, a perSecond-th of the guarded second apart: the steady rate is
// the same (50 every 1.015 s), but the fleet's requests do not leave
// several processes in one burst, queue at the server together and arrive
// bunched up by more than the guard. Time is Redis's own clock (TIME
// inside the script), so clock skew between machines cannot break the
// limit.
//
// One Lua script checks both windows and the server's hold and reserves a
// slot, in one round trip (EVALSHA, falling back to EVAL). When no slot is
// free now it reserves the earliest future one and returns the delay; the
// process sleeps that long, honouring its context. Slots are handed out in
// the order requests reach Redis, so no process is starved and nobody
// polls. A wait longer than WithMaxWait, or one that would end after the
// context's deadline, is refused at once with the same *seoapi.APIError
// the built-in limiter gives (StatusCode 0, RetryAfter set, matching
// seoapi.ErrRateLimited): the script does not reserve a slot it would have
// to give back, and a slot reserved for a wait that is refused or
// cancelled afterwards is given back (ZREM).
//
// # The server's word
//
// Limiter is a seoapi.FeedbackLimiter. When a response says no requests
// remain until a reset (or a 429 says Retry-After), the hold is stored in
// Redis, relative to Redis's clock, and no process sharing the name sends
// before it ends. A later response saying requests remain lifts the hold,
// unless the hold is younger than a second: such a response was most
// likely in flight when the hold was set, and carries older news.
//
// # Keys
//
// The keys of one name share the hash tag {name}, so that Redis Cluster
// keeps them in one slot:
//
//	seoapi:{name}:w     sorted set: one member per reserved request, scored by
//	                    its send time in Redis microseconds; at most perHour
//	                    members in the last hour, plus one per request waiting
//	                    for a future slot; expires an hour (and the guard)
//	                    after the last reservation
//	seoapi:{name}:hold  hash: until (end of the server's hold) and set (when it
//	                    was stored); expires when the hold ends
//
// Members are a random per-Limiter prefix and a counter. Nothing else is
// stored: not the API key, not a path, not a host.
//
// The scripts read TIME before they write, which needs Redis 5 or later
// (scripts replicated by their effects).
//
// # Naming budgets
//
// One name is one budget, that is one API key: give every process that
// uses the key the same name, and different keys different names. The
// name must never be the API key itself: it is stored in Redis in clear
// and appears in errors and logs. Names are 1 to 64 printable ASCII
// characters without spaces or braces; a name with a run of 24 or more
// letters and digits mixing both, which looks like a generated secret, is
// refused.
//
// # Redis down
//
// Redis is "down" when a command fails for any reason other than the
// caller's context: it cannot be reached, or it refuses the script (out of
// memory, a read-only replica). Without WithFallback, such a Wait fails at
// once with an *UnavailableError, which matches seoapi.ErrConnection
// (nothing was sent), and the call fails. With WithFallback, calls go
// through the fallback limiter instead, and a Warn is logged once per
// outage (outages less than a minute apart count as one), and an Info when
// Redis answers again, to WithLogger's logger (slog.Default() unless
// set); give the
// fallback this process's share of the limits. A server's hold seen during
// the outage is kept in the process. After a failure Redis is left alone
// for a second, so calls do not each wait for a dial timeout; then the
// next call asks it again, and once it answers the shared budget is used
// again. Set the go-redis client's MaxRetries and DialTimeout low enough
// for a call to fail (or fall back) as soon as you want it to. Redis
// started without persistence forgets the reservations of the last hour
// when it restarts, so the fleet may then send up to a second hour's
// budget in one rolling hour; run Redis with persistence where that
// matters.
package redislimit
