/**
 * Renews the lease of every key, only if every key is still ours (never half-extends).
 * KEYS = lock keys, ARGV[1] = owner token, ARGV[2] = new lease ms. Reply 1 extended, 0 not held.
 */
export const EXTEND = `
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) ~= ARGV[1] then return 0 end
end
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
`;

/**
 * The watchdog's batch: renews many locks of one hash tag in one round trip.
 * KEYS = lock keys; ARGV[1] = lease ms; ARGV[i + 1] = the owner token expected at KEYS[i].
 * Reply: per key 1 (renewed) or 0 (no longer ours; the caller declares that lock lost).
 */
export const RENEW_BATCH = `
local out = {}
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[i + 1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[1])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
`;
