-- Frees an Idempotency-Key (KEY.key) its request claimed and has no answer to keep for (a 5xx, a 400, or
-- a claim whose reply was lost): only while the key still holds that very claim (ARG.claim), so never a
-- stored answer, nor the claim of a request that took the key over once this one's had lapsed.
if redis.call('GET', KEY.key) == ARG.claim then
  return redis.call('DEL', KEY.key)
end
return 0
