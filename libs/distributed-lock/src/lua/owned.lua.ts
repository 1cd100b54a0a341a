/**
 * For a store's own script that takes a LockOwnership: lock_owned(from, owner) is true when every key in
 * KEYS[from..#KEYS] holds `owner`, i.e. the lock is this acquisition's at the moment the script runs (a
 * lock key holds its owner token as a plain string while held: acquire.lua.ts). Read-only.
 */
export const LOCK_OWNED_LUA = `
local function lock_owned(from, owner)
  for i = from, #KEYS do
    if redis.call('GET', KEYS[i]) ~= owner then return false end
  end
  return true
end
`;
