-- The sweeper's tick: which of the caller's shards (ARG.shards) have work now, from the wake index (KEY.wake, shard ->
-- when it next has work; hold-keys.ts). One read of the index, whatever the number of shards; Redis time.
-- ARG.laterMs: ms after which a claimed shard is due again by itself (the sweep sets it sooner once done:
-- if the caller dies mid-sweep, the shard is looked at again then).
-- A shard with no entry is due (a shard taken over, a wake index lost with its Redis). Each due shard is
-- moved to now + ARG.laterMs before the reply: a change that comes sooner after this lowers it again (ZADD LT),
-- so nothing the sweep does not see is lost by the sweep's own update.
-- Reply: { now, due shard... }.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local at = {}
local all = redis.call('ZRANGE', KEY.wake, 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do at[all[i]] = tonumber(all[i + 1]) end
local reply, writes = { now }, {}
local later = now + tonumber(ARG.laterMs)
for _, shard in ipairs(ARG.shards) do
  if not at[shard] or at[shard] <= now then
    reply[#reply + 1] = shard
    writes[#writes + 1] = later
    writes[#writes + 1] = shard
  end
end
if #writes > 0 then redis.call('ZADD', KEY.wake, unpack(writes)) end
return reply
