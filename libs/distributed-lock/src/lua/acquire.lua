-- Takes every lock key or none. KEYS[1] = the tag's fencing counter, KEYS[2..] = lock keys;
-- ARGV[1] = owner token (random, per acquisition), ARGV[2] = lease ms.
-- A key that already holds ARGV[1] is this very acquisition's: the client sent the script again after a
-- reconnect or a failover, once it had run. It is taken again (new lease, new token), never answered busy,
-- or a pipelined section's owner-checked write, which does pass, would be thrown away as refused.
-- Reply {1, fencingToken} when taken; {0, pttl} when any key is held (pttl = the longest remaining
-- lease among the holders: a hint for when to try again). The counter only moves on success.
-- A key that exists without an expiry (PTTL -1: someone SET it without PX, or PERSISTed it) is held, and
-- held for good: it is never taken over. The reply is then {0, -1}; the caller says so and uses its own
-- lease as the retry hint. Only a missing key (PTTL -2) is free.
local longest = -2
for i = 2, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl == -1 then return { 0, -1 } end
  if ttl > longest and redis.call('GET', KEYS[i]) ~= ARGV[1] then longest = ttl end
end
if longest ~= -2 then return { 0, longest } end
-- the counter first: a script that fails midway keeps what it wrote, and an INCR that fails (the counter
-- key is not a number) must leave no lock key behind
local token = redis.call('INCR', KEYS[1])
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2]) end
return { 1, token }
