-- Heartbeat of instance ARG.instanceId into the membership set KEY.members (instance -> Redis time of its
-- last beat): beats, forgets instances silent for ARG.ttlMs, and answers how many are live. One script, so
-- every instance counts the same way; Redis time, so no app clock takes part.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEY.members, now, ARG.instanceId)
redis.call('ZREMRANGEBYSCORE', KEY.members, '-inf', now - tonumber(ARG.ttlMs))
return redis.call('ZCARD', KEY.members)
