-- Adds one instance's hits since its last sync to the shared window counters and answers the totals, for
-- every caller the instance saw in the interval at once (one round trip per sync, not one per caller).
-- KEY.counters: one caller, one limit, one window each; all in one hash slot on a Cluster.
-- ARG.hitsAndOutlive: per counter, in that order, the hits to add and the ms it must outlive its window by.
-- The expiry is set on every call: a counter that lost it (or was created by INCRBY after an eviction) can
-- never stay forever. Returns the totals in the order of the counters.
local totals = {}
local pairs_ = ARG.hitsAndOutlive
for i, key in ipairs(KEY.counters) do
  totals[i] = redis.call('INCRBY', key, pairs_[2 * i - 1])
  redis.call('PEXPIRE', key, pairs_[2 * i])
end
return totals
