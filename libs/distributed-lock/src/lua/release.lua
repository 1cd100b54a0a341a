-- Deletes the lock keys that still carry our owner token and no other: a lock that expired and was
-- taken by someone else is never touched. KEYS = lock keys, ARGV[1] = owner token.
-- Reply = how many keys were ours (all of them: RELEASED; fewer: the lease had been lost).
local n = 0
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
    n = n + 1
  end
end
return n
