-- The change-log entries after version ARGV[1], at most ARGV[2] of them, with the current version and
-- counts. Replies {now, version, held, booked} when there is nothing newer or when the version is below
-- ARGV[1] (the meta hash was lost: the reader rebuilds), else {now, version, held, booked, entries}; the
-- reader checks that the first entry is ARGV[1] + 1 (else the log was trimmed past it: rebuild).
-- Redis TIME in ms: lazy expiry compares each held seat's expireAt with it, never with an app clock.
local t = redis.call('TIME')
local NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local meta = redis.call('HMGET', KEYS[1], 'v', 'held', 'booked')
local version, from = tonumber(meta[1] or '0'), tonumber(ARGV[1])
local reply = { NOW, version, tonumber(meta[2] or '0'), tonumber(meta[3] or '0') }
if version <= from then return reply end
reply[5] = redis.call('XRANGE', KEYS[2], '(' .. ARGV[1] .. '-0', '+', 'COUNT', ARGV[2])
return reply
