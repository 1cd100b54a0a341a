-- The watchdog's batch: renews many locks of one hash tag in one round trip, each all-or-none like EXTEND,
-- to a lease of ARG.leaseMs. KEY.lockKeys: the keys of every lock, lock after lock; ARG.locks: per lock in
-- the same order, its key count and its owner token.
-- Reply: one entry per lock (not per key), 1 renewed or 0 no longer ours (the caller declares it lost).
-- A lock with one key taken by someone else is not renewed at all: its other keys run out with their lease
-- instead of blocking the next owner for one more lease.
local out = {}
local keys, locks = KEY.lockKeys, ARG.locks
local first = 1
for a = 1, #locks, 2 do
  local count = tonumber(locks[a])
  local owner = locks[a + 1]
  local last = first + count - 1
  local mine = 1
  for k = first, last do
    if redis.call('GET', keys[k]) ~= owner then
      mine = 0
      break
    end
  end
  if mine == 1 then
    for k = first, last do redis.call('PEXPIRE', keys[k], ARG.leaseMs) end
  end
  out[#out + 1] = mine
  first = last + 1
end
return out
