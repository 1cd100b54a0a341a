-- The watchdog's batch: renews many locks of one hash tag in one round trip, each all-or-none like EXTEND.
-- KEYS = the keys of every lock, lock after lock; ARGV[1] = lease ms; then, per lock in the same order,
-- its key count and its owner token.
-- Reply: one entry per lock (not per key), 1 renewed or 0 no longer ours (the caller declares it lost).
-- A lock with one key taken by someone else is not renewed at all: its other keys run out with their lease
-- instead of blocking the next owner for one more lease.
local out = {}
local first = 1
for a = 2, #ARGV, 2 do
  local count = tonumber(ARGV[a])
  local owner = ARGV[a + 1]
  local last = first + count - 1
  local mine = 1
  for k = first, last do
    if redis.call('GET', KEYS[k]) ~= owner then
      mine = 0
      break
    end
  end
  if mine == 1 then
    for k = first, last do redis.call('PEXPIRE', KEYS[k], ARGV[1]) end
  end
  out[#out + 1] = mine
  first = last + 1
end
return out
