import { luaScript, RedisScript } from '@app/redis';
import type Redis from 'ioredis';
import { LOCK_LUA_DIR, LOCK_SCRIPTS } from './lua/manifest';

const SCRIPTS = Object.fromEntries(
  Object.entries(LOCK_SCRIPTS).map(([name, spec]) => [name, new RedisScript(luaScript(LOCK_LUA_DIR, spec))]),
) as Record<keyof typeof LOCK_SCRIPTS, RedisScript>;

/**
 * The lock's Lua scripts (lua/manifest.ts) as typed calls: one EVALSHA per call (EVAL when Redis lost the
 * script). A lock has any number of keys, so each call passes its key count (RedisScript).
 */
export class LockScripts {
  constructor(private readonly redis: Redis) {}

  /** [1, fencingToken] when taken; [0, pttl] when held (pttl -1: held by a key without expiry). */
  acquire(fenceKey: string, redisKeys: readonly string[], owner: string, leaseMs: number) {
    return SCRIPTS.dlockAcquire.run(this.redis, [fenceKey, ...redisKeys], [owner, leaseMs]) as Promise<
      [number, number]
    >;
  }

  /** How many of the keys still carried our owner token (and were deleted). */
  async release(redisKeys: readonly string[], owner: string): Promise<number> {
    return Number(await SCRIPTS.dlockRelease.run(this.redis, redisKeys, [owner]));
  }

  /** 1 extended, 0 not ours. */
  async extend(redisKeys: readonly string[], owner: string, leaseMs: number): Promise<number> {
    return Number(await SCRIPTS.dlockExtend.run(this.redis, redisKeys, [owner, leaseMs]));
  }

  /** One result per lock, in the order given: 1 renewed, 0 no longer ours. */
  renew(
    locks: readonly { redisKeys: readonly string[]; owner: string }[],
    leaseMs: number,
  ): Promise<number[]> {
    const keys: string[] = [];
    const args: (string | number)[] = [leaseMs];
    for (const l of locks) {
      keys.push(...l.redisKeys);
      args.push(l.redisKeys.length, l.owner);
    }
    return SCRIPTS.dlockRenew.run(this.redis, keys, args) as Promise<number[]>;
  }
}
