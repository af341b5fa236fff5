// Package redislimit keeps a fleet of processes that share one API key
// inside the published rate limits, by keeping the budget in Redis.
//
// Every Client paces itself, but the limits belong to the key: three
// replicas each pacing at the limit send three times the limit. A Limiter
// from New is shared by every process that uses the same Redis and the
// same name:
//
//	rdb := redis.NewClient(&redis.Options{
//		Addr:                  "127.0.0.1:6379",
//		ContextTimeoutEnabled: true, // a round trip ends at its context's deadline
//		DialTimeout:           time.Second,
//		ReadTimeout:           time.Second,
//		WriteTimeout:          time.Second,
//		MaxRetries:            1,
//	})
//	lim, err := redislimit.New(rdb, "crawler-prod")
//	...
//	client, err := seoapi.NewClient(baseURL, key, seoapi.WithLimiter(lim))
//
// Limiter.Budget reads what the fleet has used of the hour and the
// second, in one round trip to Redis.
//
// # Windows
//
// At most perHour requests go out in any rolling hour and perSecond in any
// rolling second, across all processes sharing (Redis, name). A server
// counts a request when it arrives, somewhere between its release and its
// answer, so the fleet counts each request as the core's built-in limiter
// does (the slot rule of the seoapi package): Acquire reserves a slot of
// the second held until release + 1 s (the longest transit assumed) + 1 s
// and 5 ms, and the done func it returns says how the request ended. An
// answered request then counts until Redis's clock at the answer + 1 s +
// 5 ms; one that got no answer (a timeout, a reset, a context that ended
// in flight) keeps its slot until the later of that reservation and its
// failure + 1 s + 5 ms, taking it again if it had freed: a slow server
// may still read it. However late a loaded machine sends a request or
// reads its answer, the server's count of any second stays within
// perSecond (provided the request arrived within a second of its
// release). The hour counts each request from its release with a 2 s
// guard.
//
// Slots are also spaced, half a perSecond-th of the guarded second apart,
// so that the fleet's requests do not leave several processes in one
// burst, and the fleet catches up after a slow answer. Time is Redis's own
// clock (TIME inside the scripts), so clock skew between the fleet's
// machines cannot break the limit.
//
// One Lua script checks both windows and the server's hold and reserves a
// slot, in one round trip (EVALSHA, falling back to EVAL); telling how
// the request ended is one more. When no slot is free now it reserves the earliest future one
// and returns the delay; the process sleeps that long, honouring its
// context, and runs the script again, which lets the request go unless a
// hold was stored meanwhile (then it waits for the hold as well) or it
// came back more than 250 ms after its slot. The second counts from the
// slot, so a request that went late would have that much less than the
// 1 s transit assumed: on a loaded machine, where a sleep wakes late and
// a round trip to Redis is slow, it instead gives the slot back and takes
// a new one, as a new request would, and counts from that one. Slots
// are handed out in the order requests reach Redis, so no process is
// starved. A wait longer than the calling client's max wait (for a client
// that set none, WithMaxWait's, or else seoapi.DefaultMaxWait), or one
// that would end after the context's deadline, is refused at once with
// the same *seoapi.APIError the built-in limiter gives (StatusCode 0,
// RetryAfter set, matching seoapi.ErrRateLimited): the script does not
// reserve a slot it would have to give back, and a slot reserved for a
// wait that is cancelled afterwards is given back (ZREM).
//
// # A reserve for other work
//
// A Limiter made with WithReserve(perHour, perSecond), for a batch job
// sharing its key with a service, lets a request go only while the
// budget of its name keeps that many slots of the hour and of the second
// free for limiters without a reserve; the check is part of the same
// script, on Redis's clock. A request the reserve holds back reserves
// nothing: it takes no place in line ahead of the limiters without a
// reserve, sleeps until the reserve would let it go, and asks again. The
// max wait bounds its whole wait. With WithLimits(100, 50), a job with
// WithReserve(30, 0) gets 70 requests through in an hour, and a service
// without a reserve still gets its 30 at once:
//
//	// In the nightly sync:
//	lim, err := redislimit.New(rdb, "crawler-prod", redislimit.WithReserve(2000, 10))
//	// In the service that shares its key:
//	lim, err := redislimit.New(rdb, "crawler-prod")
//
// # The server's hold
//
// The client tells the Limiter the server's hold (Hold). When a response
// says no requests remain until a reset (or a 429 says Retry-After), the
// hold is stored in Redis, relative to Redis's clock, and no process
// sharing the name sends before it ends. A later response saying requests remain lifts the hold,
// unless the hold is younger than a second: such a response was most
// likely in flight when the hold was set, and carries older news. (The
// exact rule, that an answer lifts only a hold set before its request was
// sent, needs the request's send time, which Hold is not told; each
// client applies it to its own requests.) A process that has not seen a hold sends no lift to Redis.
//
// # Contexts
//
// A call waits for Redis only while its context lasts, whatever the
// go-redis options: each round trip runs in a goroutine of its own. A
// reservation the call stopped waiting for is given back once Redis has
// answered it; telling Redis how a request ended never holds a call up; giving a
// slot back and storing or lifting a hold are waited for while the
// context lasts, and finish in the background otherwise. Background
// round trips end within a second. Set ContextTimeoutEnabled on the
// go-redis client, so that a round trip abandoned at a deadline ends then
// too (without it, go-redis bounds it by ReadTimeout only).
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
//	seoapi:{name}:s     sorted set: the same members while they count in the
//	                    rolling second, scored by when they stop; expires when
//	                    the last one stops
//	seoapi:{name}:hold  hash: until (end of the server's hold) and set (when it
//	                    was stored); expires when the hold ends
//
// Members are a random per-Limiter prefix and a counter. Nothing else is
// stored: not the API key, not a path, not a host.
//
// The scripts read TIME before they write, which needs Redis 5 or later
// (scripts replicated by their effects). A version of this package before
// the :s key counted the second from the :w key alone: during a rolling
// upgrade, old and new processes sharing a name each see only part of
// the other's second, so stop the old processes before starting the new
// ones, or expect a few 429s (which the client retries) while both run.
//
// # Deployments
//
// The tests run the package against a single redis-server
// (redis.NewClient) and against a Redis Cluster of three masters
// (redis.NewClusterClient), each with a fleet of processes held to a
// strict rolling second. Any redis.UniversalClient works: a Sentinel
// failover client too, though it is not tested here. In a Cluster, the
// keys of one name live on one master (one hash slot); different names
// spread over the masters.
//
// A failover loses what the old master had not yet copied to the replica
// that takes over (Redis replicates asynchronously): the reservations and
// holds of the last moments before it. Each script runs whole or not at
// all on one master, and reads that master's clock; after a failover the
// new master's clock reads the stored times, so keep the Redis nodes'
// clocks in sync (NTP): a new master whose clock is ahead by d shortens
// the windows of the slots stored before the failover by d. While the
// name's master cannot be reached or refuses writes (a replica answers
// READONLY; a Cluster with a slot uncovered answers CLUSTERDOWN), the
// Limiter counts Redis as down (below): with WithFallback the process
// keeps to the fallback's share, without it calls fail with an
// *UnavailableError; go-redis follows MOVED redirections to the new master
// by itself, and once it answers the shared budget is used again. So
// around a failover the fleet may send more than its budget by what the
// lost writes and the fallbacks' shares allow; where that matters, give
// the fallbacks a small share.
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
// memory, a read-only replica). Without WithFallback, such an Acquire
// fails at once with an *UnavailableError, which matches
// seoapi.ErrConnection (nothing was sent), and the call fails. With
// WithFallback, calls go through the fallback limiter instead, which is
// told how each request ended and the server's hold, and a Warn is logged once per outage
// (outages less than a minute apart count as one), and an Info when Redis
// answers again, to WithLogger's logger (slog.Default() unless set); give
// the fallback this process's share of the limits. A server's hold seen
// during the outage is told to the fallback, and each client keeps it for
// its own requests. After a failure Redis is left
// alone for a second, so calls do not each wait for a dial timeout; then
// the next call asks it again, and once it answers the shared budget is
// used again. The end of a request that cannot be told leaves its slot
// counting until its release + 2 s, which only slows the fleet. Set the go-redis client's
// MaxRetries, DialTimeout and ReadTimeout low enough for a call to fail
// (or fall back) as soon as you want it to. Redis started without persistence forgets the
// reservations of the last hour when it restarts, so the fleet may then
// send up to a second hour's budget in one rolling hour; run Redis with
// persistence where that matters.
package redislimit
