-- Gives shard leases back (KEYS[1] the leases hash, see shard-leases.lua): ARGV[1] owner, then the
-- shards. Only the owner's own leases go; one another instance took meanwhile stays. Returns how many went.
local gone = {}
for i = 2, #ARGV do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  if v and string.sub(v, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then gone[#gone + 1] = ARGV[i] end
end
if #gone == 0 then return 0 end
return redis.call('HDEL', KEYS[1], unpack(gone))
