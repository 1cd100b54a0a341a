/**
 * Adds one instance's hits since its last sync to the shared window counter and answers the total.
 * KEYS[1] = the counter of one caller, one limit, one window; ARGV[1] = hits to add, ARGV[2] = ms the
 * counter must outlive its window by. The expiry is set on every call: a counter that lost it (or was
 * created by INCRBY after an eviction) can never stay forever.
 */
export const SYNC_COUNTER = `
local total = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return total
`;
