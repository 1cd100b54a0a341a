-- Takes every key of KEY.lockKeys or none, for owner token ARG.owner (random, per acquisition), with a lease
-- of ARG.leaseMs; KEY.fenceCounter is the tag's fencing counter.
-- A key that already holds the owner is this very acquisition's: the client sent the script again after a
-- reconnect or a failover, once it had run. It is taken again (new lease, new token), never answered busy,
-- or a pipelined section's owner-checked write, which does pass, would be thrown away as refused.
-- Reply {1, fencingToken} when taken; {0, pttl} when any key is held (pttl = the longest remaining
-- lease among the holders: a hint for when to try again). The counter only moves on success.
-- A key that exists without an expiry (PTTL -1: someone SET it without PX, or PERSISTed it) is held, and
-- held for good: it is never taken over. The reply is then {0, -1}; the caller says so and uses its own
-- lease as the retry hint. Only a missing key (PTTL -2) is free.
local longest = -2
for _, k in ipairs(KEY.lockKeys) do
  local ttl = redis.call('PTTL', k)
  if ttl == -1 then return { 0, -1 } end
  if ttl > longest and redis.call('GET', k) ~= ARG.owner then longest = ttl end
end
if longest ~= -2 then return { 0, longest } end
-- the counter first: a script that fails midway keeps what it wrote, and an INCR that fails (the counter
-- key is not a number) must leave no lock key behind
local token = redis.call('INCR', KEY.fenceCounter)
for _, k in ipairs(KEY.lockKeys) do redis.call('SET', k, ARG.owner, 'PX', ARG.leaseMs) end
return { 1, token }
