-- For a store's own script that takes a LockOwnership (its lock's keys are a list of the script's keys):
-- - lock_owned(keys, owner) is true when every key of `keys` holds `owner`, i.e. the lock is this
--   acquisition's at the moment the script runs (a lock key holds its owner token as a plain string
--   while held: acquire.lua). Read-only.
-- - lock_let_go(keys) deletes those keys: for the section's last write (HeldLock.letGoInScript), called
--   once lock_owned was true in the same script, as the script's last change. The lock is then released
--   in the write's own command, atomically with it: no release command follows.
local function lock_owned(keys, owner)
  for _, k in ipairs(keys) do
    if redis.call('GET', k) ~= owner then return false end
  end
  return true
end
local function lock_let_go(keys)
  for _, k in ipairs(keys) do redis.call('DEL', k) end
end
