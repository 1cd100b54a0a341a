-- For a store's own script that takes a LockOwnership:
-- - lock_owned(from, owner) is true when every key in KEYS[from..#KEYS] holds `owner`, i.e. the lock is
--   this acquisition's at the moment the script runs (a lock key holds its owner token as a plain string
--   while held: acquire.lua). Read-only.
-- - lock_let_go(from) deletes those keys: for the section's last write (HeldLock.letGoInScript), called
--   once lock_owned was true in the same script, as the script's last change. The lock is then released
--   in the write's own command, atomically with it: no release command follows.
local function lock_owned(from, owner)
  for i = from, #KEYS do
    if redis.call('GET', KEYS[i]) ~= owner then return false end
  end
  return true
end
local function lock_let_go(from)
  for i = from, #KEYS do redis.call('DEL', KEYS[i]) end
end
