-- Gives shard leases back (KEY.leases, the leases hash, see shard-leases.lua): ARG.shards of ARG.owner.
-- Only the owner's own leases go; one another instance took meanwhile stays. Returns how many went.
local gone = {}
for _, shard in ipairs(ARG.shards) do
  local v = redis.call('HGET', KEY.leases, shard)
  if v and string.sub(v, 1, #ARG.owner + 1) == ARG.owner .. '|' then gone[#gone + 1] = shard end
end
if #gone == 0 then return 0 end
return redis.call('HDEL', KEY.leases, unpack(gone))
