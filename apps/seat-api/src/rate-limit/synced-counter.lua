-- Adds one instance's hits since its last sync to the shared window counters and answers the totals, for
-- every caller the instance saw in the interval at once (one round trip per sync, not one per caller).
-- KEYS = the counters (one caller, one limit, one window each; all in one hash slot on a Cluster);
-- ARGV[2i-1] = hits to add to KEYS[i], ARGV[2i] = ms KEYS[i] must outlive its window by. The expiry is set
-- on every call: a counter that lost it (or was created by INCRBY after an eviction) can never stay forever.
-- Returns the totals in KEYS order.
local totals = {}
for i = 1, #KEYS do
  totals[i] = redis.call('INCRBY', KEYS[i], ARGV[2 * i - 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
end
return totals
