package redislimit

// The scripts work in microseconds of Redis's clock. Scores and times are
// formatted with %.0f because Lua 5.1 turns a number into a string with
// %.14g, which would round a time in microseconds (16 digits).

// reserveSource checks the hold and both windows and reserves the earliest
// free slot, all in one atomic step.
//
// KEYS[1] the hour (sorted set of releases), KEYS[2] the hold (hash),
// KEYS[3] the second (sorted set of when each request stops counting).
// ARGV: perHour, perSecond, the caller's reserve of the hour and of the
// second, the hour window (µs), how long after its release a request
// counts in the second until it is told how it ended (µs), the longest delay the
// caller accepts (µs), the request's member, the spacing between slots
// (µs), how late after its slot a request may still go (µs).
// It returns {delay µs, reason, hold in place (0/1), reserved (0/1),
// held back by the reserve (0/1)}.
//
// The hour: a new slot is at least the spacing after the latest one
// reserved, so every member is before it and the only window that can
// overflow is the one ending at the slot: it overflows when the limit-th
// newest member is inside it, and moving the slot to that member's time
// plus the window fixes it.
//
// The second: each member's score is when it stops counting (its release
// plus ARGV[6]; the end script moves it to a second after the answer or
// the failure).
// Releases only grow, so at the new slot's release every member of the
// second has been released, and the most members counting at any time
// from then on is the number counting at the release: fewer than the
// limit once the slot is no earlier than the limit-th latest score.
//
// Moving the slot later only empties both windows further, so one pass
// over hold, spacing, hour and second is enough.
//
// The reserve: the same two bounds with the limits less the reserve. When
// they put the slot later than the limits alone do, the reserve holds the
// request back: nothing is reserved, so the request takes no place in
// line ahead of limiters without a reserve, and the caller asks again
// after the delay.
//
// A member already in the hour is a request back when its slot is due:
// it goes (delay 0, reserved) unless a hold was stored while it waited, or
// it came back more than ARGV[10] µs after its slot. Then its slot is
// given back and it asks again like a new request: nothing is let go
// inside a hold, and nothing goes counted from a slot long past. The
// second counts a request from its slot, so every moment it goes late is
// taken from the transit it is allowed (ARGV[6]); a sleep that woke late
// or a slow round trip to Redis on a loaded machine would otherwise let it
// reach the server after its slot had stopped counting.
//
// Members leave the hour only when they leave it (or are given back),
// never by rank: a slot given back lets the next one be earlier than it
// was, and its window may then still hold a member that a trim by rank
// would have dropped. So the set holds at most perHour members in the
// last hour, plus one per request waiting for a future slot.
const reserveSource = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local perHour, perSecond = tonumber(ARGV[1]), tonumber(ARGV[2])
local keepHour, keepSecond = tonumber(ARGV[3]), tonumber(ARGV[4])
local hourW, counts = tonumber(ARGV[5]), tonumber(ARGV[6])
local maxDelay, spacing, maxLate = tonumber(ARGV[7]), tonumber(ARGV[9]), tonumber(ARGV[10])
local function us(x) return string.format('%.0f', x) end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', us(now - hourW))
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', us(now))
local hold = tonumber(redis.call('HGET', KEYS[2], 'until') or '0')
local slot = redis.call('ZSCORE', KEYS[1], ARGV[8])
if slot then
  if hold <= now and now <= tonumber(slot) + maxLate then return {0, 0, 0, 1, 0} end
  redis.call('ZREM', KEYS[1], ARGV[8])
  redis.call('ZREM', KEYS[3], ARGV[8])
end
local at, why, held = now, 0, 0
if hold > at then at, why, held = hold, 1, 1 end
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')[2]
if last and tonumber(last) + spacing > at then
  at, why = tonumber(last) + spacing, (tonumber(last) > now) and 4 or 3
end

local function bound(key, limit, window, code, at, why)
  if redis.call('ZCARD', key) < limit then return at, why end
  local s = tonumber(redis.call('ZRANGE', key, -limit, -limit, 'WITHSCORES')[2])
  if s + window > at then return s + window, code end
  return at, why
end
at, why = bound(KEYS[1], perHour, hourW, 2, at, why)
at, why = bound(KEYS[3], perSecond, 0, 3, at, why)
local kept, keptWhy = bound(KEYS[1], perHour - keepHour, hourW, 2, at, why)
kept, keptWhy = bound(KEYS[3], perSecond - keepSecond, 0, 3, kept, keptWhy)
if kept > at then return {kept - now, keptWhy, held, 0, 1} end

local delay = at - now
if delay > maxDelay then return {delay, why, held, 0, 0} end
redis.call('ZADD', KEYS[1], us(at), ARGV[8])
redis.call('PEXPIRE', KEYS[1], math.ceil((delay + hourW) / 1000))
redis.call('ZADD', KEYS[3], us(at + counts), ARGV[8])
local latest = tonumber(redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[3], math.ceil((latest - now) / 1000) + 1)
return {delay, why, held, 1, 0}
`

// The reasons reserveSource gives for a delay.
const (
	reasonNone = iota
	reasonHold
	reasonHour
	reasonSecond
	reasonQueue
)

// endSource tells the second how a request ended: the server counted it
// by Redis's now, or, when it failed without an answer, may still count it
// until then. It counts until now plus ARGV[2] µs: when that is sooner
// than its reservation said for an answered request (ARGV[3] 1), and when
// that is later for a failed one (0), which takes the slot again if it
// had freed meanwhile. A member no longer in the hour (given back) is left
// alone.
//
// KEYS[1] the hour, KEYS[2] the second (sorted sets), ARGV[1] the member
// the reservation added. It returns 1 when the member was moved.
const endSource = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local cur = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0')
local frees = now + tonumber(ARGV[2])
if ARGV[3] == '1' and (cur == 0 or frees >= cur) then return 0 end
if ARGV[3] ~= '1' and frees <= cur then return 0 end
redis.call('ZADD', KEYS[2], string.format('%.0f', frees), ARGV[1])
local latest = tonumber(redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', KEYS[2], math.ceil((latest - now) / 1000) + 1)
return 1
`

// holdSource stores the server's hold: nothing is sent before Redis's now
// plus ARGV[1] µs. A longer hold already stored stands.
//
// KEYS[1] the hold (hash). It returns 1 when the hold was stored.
const holdSource = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local d = tonumber(ARGV[1])
local function us(x) return string.format('%.0f', x) end
local cur = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
if now + d <= cur then return 0 end
redis.call('HSET', KEYS[1], 'until', us(now + d), 'set', us(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(d / 1000) + 1)
return 1
`

// liftSource ends the hold, unless it was stored less than ARGV[1] µs ago.
//
// KEYS[1] the hold (hash). It returns 1 when a hold is still in place.
const liftSource = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local set = redis.call('HGET', KEYS[1], 'set')
if not set then return 0 end
if now - tonumber(set) < tonumber(ARGV[1]) then return 1 end
redis.call('DEL', KEYS[1])
return 0
`

// budgetSource reads the windows and the hold, and changes nothing.
//
// KEYS as reserveSource's; ARGV[1] the hour window (µs). It returns
// {requests in the hour, requests counting in the second now or later,
// µs until the hold ends (0: none)}. Reserved slots whose time has not
// come yet count in both.
const budgetSource = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function us(x) return string.format('%.0f', x) end
local hour = redis.call('ZCOUNT', KEYS[1], '(' .. us(now - tonumber(ARGV[1])), '+inf')
local second = redis.call('ZCOUNT', KEYS[3], '(' .. us(now), '+inf')
local hold = tonumber(redis.call('HGET', KEYS[2], 'until') or '0')
return {hour, second, math.max(hold - now, 0)}
`
