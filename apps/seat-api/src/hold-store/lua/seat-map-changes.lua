-- The change-log entries after version ARG.fromVersion, at most ARG.max of them, with the current version,
-- the log's epoch ('' before its first entry, and for a log older than epochs) and counts. Replies {now,
-- version, held, booked, epoch} when there is nothing newer or when the version is below ARG.fromVersion,
-- else {now, version, held, booked, epoch, entries}; with nothing newer also {..., {}, the event's
-- general-admission areas as their hash has them (name, "capacity|held|booked|blocked"...)}: read with the
-- version in one step, so a seat map built from this head is of one version, areas included (places.lua).
-- The reader rebuilds when the epoch is not its own
-- (Redis lost the log) and checks that the first entry is ARG.fromVersion + 1 (else the log was trimmed
-- past it).
-- Redis TIME in ms: lazy expiry compares each held seat's expireAt with it, never with an app clock.
local t = redis.call('TIME')
local NOW = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local meta = redis.call('HMGET', KEY.meta, 'v', 'held', 'booked', 'e')
local version, from = tonumber(meta[1] or '0'), tonumber(ARG.fromVersion)
local reply = { NOW, version, tonumber(meta[2] or '0'), tonumber(meta[3] or '0'), meta[4] or '' }
if version <= from then
  -- HSCAN, never HGETALL, on an event's hashes (a small one answers in one call: at most 100 areas)
  local areas, cursor, key = {}, '0', string.sub(KEY.meta, 1, -5) .. 'areas'
  repeat
    local page = redis.call('HSCAN', key, cursor, 'COUNT', 200)
    cursor = page[1]
    for _, v in ipairs(page[2]) do areas[#areas + 1] = v end
  until cursor == '0'
  reply[6] = {}
  reply[7] = areas
  return reply
end
reply[6] = redis.call('XRANGE', KEY.changes, '(' .. ARG.fromVersion .. '-0', '+', 'COUNT', ARG.max)
return reply
