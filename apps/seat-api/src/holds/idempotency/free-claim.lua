-- Frees an Idempotency-Key its request claimed and has no answer to keep for (a 5xx, a 400, or a claim
-- whose reply was lost): only while the key still holds that very claim (ARGV[1]), so never a stored
-- answer, nor the claim of a request that took the key over once this one's had lapsed.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
