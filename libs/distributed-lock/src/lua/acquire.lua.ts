/**
 * Takes every lock key or none. KEYS[1] = the tag's fencing counter, KEYS[2..] = lock keys;
 * ARGV[1] = owner token (random, per acquisition), ARGV[2] = lease ms.
 * Reply {1, fencingToken} when taken; {0, pttl} when any key is held (pttl = the longest remaining
 * lease among the holders: a hint for when to try again). The counter only moves on success.
 */
export const ACQUIRE = `
local longest = -1
for i = 2, #KEYS do
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl ~= -2 then
    if ttl > longest then longest = ttl end
  end
end
if longest ~= -1 then return { 0, longest } end
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2]) end
return { 1, redis.call('INCR', KEYS[1]) }
`;
