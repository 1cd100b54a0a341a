-- Deletes the keys of KEY.lockKeys that still carry owner token ARG.owner and no other: a lock that
-- expired and was taken by someone else is never touched.
-- Reply = how many keys were ours (all of them: RELEASED; fewer: the lease had been lost).
local n = 0
for _, k in ipairs(KEY.lockKeys) do
  if redis.call('GET', k) == ARG.owner then
    redis.call('DEL', k)
    n = n + 1
  end
end
return n
