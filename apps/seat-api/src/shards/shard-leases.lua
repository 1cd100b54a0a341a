-- The shard leases of the whole deployment in one hash (KEY.leases): field shard -> "<owner>|<until ms>",
-- until in Redis time, so no instance's clock takes part. One call renews every lease an instance keeps
-- and takes free ones, whatever their number: a handful of commands, where a lock per shard cost a
-- script call per shard and lease period.
--
-- ARG.owner, ARG.leaseMs, ARG.take: how many free shards to take at most, ARG.shardCount, ARG.start:
-- where to start looking for free shards (instances starting together do not all try the same ones),
-- ARG.keptShards: the shards the owner keeps (renewed while still its own).
-- A shard is free when it has no field, or its lease ran out. A lease of the owner's that ran out and
-- nobody took is renewed: nobody else worked on the shard meanwhile. A kept shard whose lease another
-- instance took is not renewed, nor taken back.
-- Reply: { renewed shards, taken shards }; a kept shard missing from the renewed list is lost.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner, lease, want = ARG.owner, tonumber(ARG.leaseMs), tonumber(ARG.take)
local shards, start = tonumber(ARG.shardCount), tonumber(ARG.start)
local untilMs = owner .. '|' .. (now + lease)

local holder = {}
local all = redis.call('HGETALL', KEY.leases)
for i = 1, #all, 2 do
  local who, till = string.match(all[i + 1], '^(.*)|(%d+)$')
  holder[tonumber(all[i])] = { who = who, live = tonumber(till) > now }
end

local writes, renewed, taken = {}, {}, {}
for _, kept in ipairs(ARG.keptShards) do
  local s = tonumber(kept)
  local h = holder[s]
  if h and h.who == owner then
    renewed[#renewed + 1] = s
    writes[#writes + 1] = s
    writes[#writes + 1] = untilMs
  end
  holder[s] = { kept = true }
end
for i = 0, shards - 1 do
  if #taken >= want then break end
  local s = (start + i) % shards
  local h = holder[s]
  -- the owner's own lease of a shard it does not keep: it stopped working on it (could not renew in time)
  if not h or (not h.kept and (not h.live or h.who == owner)) then
    taken[#taken + 1] = s
    writes[#writes + 1] = s
    writes[#writes + 1] = untilMs
  end
end
if #writes > 0 then redis.call('HSET', KEY.leases, unpack(writes)) end
return { renewed, taken }
