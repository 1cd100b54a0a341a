-- The change-log entries after version ARG.fromVersion, at most ARG.max of them, with the current version,
-- the log's epoch ('' before its first entry, and for a log older than epochs) and counts. Replies {now,
-- version, held, booked, epoch} when there is nothing newer or when the version is below ARG.fromVersion,
-- else {now, version, held, booked, epoch, entries}; the reader rebuilds when the epoch is not its own
-- (Redis lost the log) and checks that the first entry is ARG.fromVersion + 1 (else the log was trimmed
-- past it).
-- Redis TIME in ms: lazy expiry compares each held seat's expireAt with it, never with an app clock.
local t = redis.call('TIME')
local NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local meta = redis.call('HMGET', KEY.meta, 'v', 'held', 'booked', 'e')
local version, from = tonumber(meta[1] or '0'), tonumber(ARG.fromVersion)
local reply = { NOW, version, tonumber(meta[2] or '0'), tonumber(meta[3] or '0'), meta[4] or '' }
if version <= from then return reply end
reply[6] = redis.call('XRANGE', KEY.changes, '(' .. ARG.fromVersion .. '-0', '+', 'COUNT', ARG.max)
return reply
