import { LuaScriptSpec, readLua } from '@app/redis';

/**
 * The lock's Lua: each script's file (in this folder) and what each call passes, KEYS then ARGV in order.
 * A lock's keys share one hash tag, and its fencing counter is the tag's (lock-keys.ts): one slot.
 */
export const LOCK_SCRIPTS = {
  dlockAcquire: { file: 'acquire.lua', keys: ['fenceCounter', 'lockKey...'], argv: ['owner', 'leaseMs'] },
  dlockRelease: { file: 'release.lua', keys: ['lockKey...'], argv: ['owner'] },
  dlockExtend: { file: 'extend.lua', keys: ['lockKey...'], argv: ['owner', 'leaseMs'] },
  // per lock, in KEYS order: its key count and its owner token
  dlockRenew: { file: 'renew-batch.lua', keys: ['lockKey...'], argv: ['leaseMs', 'keyCount, owner...'] },
} as const satisfies Record<string, LuaScriptSpec>;

/** The folder of the lock's .lua files (in dist too: nest-cli.json copies them beside the code). */
export const LOCK_LUA_DIR = __dirname;

/**
 * For a store's own script that takes a LockOwnership (owned.lua): defines lock_owned(from, owner) and
 * lock_let_go(from) over KEYS[from..#KEYS]. A documented contract of this library: the script puts it
 * ahead of its own Lua and passes the lock's keys last.
 */
export const LOCK_OWNED_LUA = readLua(LOCK_LUA_DIR, 'owned.lua');
