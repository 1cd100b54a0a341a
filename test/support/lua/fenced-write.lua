-- A store protected by fencing tokens: accepts a write to KEY.store only with a token (ARG.token) at least
-- as high as the last one it saw, then keeps the token and ARG.value. Replies 1 written, 0 refused.
local last = tonumber(redis.call('HGET', KEY.store, 'fence') or '0')
if tonumber(ARG.token) < last then return 0 end
redis.call('HSET', KEY.store, 'fence', ARG.token, 'value', ARG.value)
return 1
