import { join } from 'node:path';
import { LuaScriptSpec } from '@app/redis';

/**
 * The lock's Lua: each script's file (in this folder) and what each call passes, KEYS then ARGV in order.
 * A lock's keys share one hash tag, and its fencing counter is the tag's (lock-keys.ts): one slot.
 */
export const LOCK_SCRIPTS = {
  dlockAcquire: { file: 'acquire.lua', keys: ['fenceCounter', 'lockKeys...'], argv: ['owner', 'leaseMs'] },
  dlockRelease: { file: 'release.lua', keys: ['lockKeys...'], argv: ['owner'] },
  dlockExtend: { file: 'extend.lua', keys: ['lockKeys...'], argv: ['owner', 'leaseMs'] },
  // locks: per lock, in the order of lockKeys, its key count and its owner token
  dlockRenew: { file: 'renew-batch.lua', keys: ['lockKeys...'], argv: ['leaseMs', 'locks...'] },
} as const satisfies Record<string, LuaScriptSpec>;

/** The folder of the lock's .lua files (in dist too: nest-cli.json copies them beside the code). */
export const LOCK_LUA_DIR = __dirname;

/**
 * For a store's own script that takes a LockOwnership: the file (owned.lua) that defines
 * lock_owned(keys, owner) and lock_let_go(keys) over a list of the script's keys (its lock's keys). A
 * documented contract of this library: the script puts it ahead of its own Lua (a manifest's `uses`).
 */
export const LOCK_OWNED_LUA_FILE = join(LOCK_LUA_DIR, 'owned.lua');
