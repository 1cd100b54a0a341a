import { LuaScript } from '@app/redis';
import type Redis from 'ioredis';
import { LOCK_LUA_DIR, LOCK_SCRIPTS } from './lua/manifest';

const SCRIPTS = {
  dlockAcquire: new LuaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockAcquire),
  dlockRelease: new LuaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockRelease),
  dlockExtend: new LuaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockExtend),
  dlockRenew: new LuaScript(LOCK_LUA_DIR, LOCK_SCRIPTS.dlockRenew),
};

/**
 * The lock's Lua scripts (lua/manifest.ts) as typed calls: one EVALSHA per call (EVAL when Redis lost the
 * script). A lock has any number of keys, so each call passes its key count (RedisScript).
 */
export class LockScripts {
  constructor(private readonly redis: Redis) {}

  /** [1, fencingToken] when taken; [0, pttl] when held (pttl -1: held by a key without expiry). */
  acquire(fenceKey: string, redisKeys: readonly string[], owner: string, leaseMs: number) {
    return SCRIPTS.dlockAcquire.run(
      this.redis,
      { fenceCounter: fenceKey, lockKeys: redisKeys },
      { owner, leaseMs },
    ) as Promise<[number, number]>;
  }

  /** How many of the keys still carried our owner token (and were deleted). */
  async release(redisKeys: readonly string[], owner: string): Promise<number> {
    return Number(await SCRIPTS.dlockRelease.run(this.redis, { lockKeys: redisKeys }, { owner }));
  }

  /** 1 extended, 0 not ours. */
  async extend(redisKeys: readonly string[], owner: string, leaseMs: number): Promise<number> {
    return Number(await SCRIPTS.dlockExtend.run(this.redis, { lockKeys: redisKeys }, { owner, leaseMs }));
  }

  /** One result per lock, in the order given: 1 renewed, 0 no longer ours. */
  renew(
    locks: readonly { redisKeys: readonly string[]; owner: string }[],
    leaseMs: number,
  ): Promise<number[]> {
    const lockKeys: string[] = [];
    const perLock: (string | number)[] = [];
    for (const l of locks) {
      lockKeys.push(...l.redisKeys);
      perLock.push(l.redisKeys.length, l.owner);
    }
    return SCRIPTS.dlockRenew.run(this.redis, { lockKeys }, { leaseMs, locks: perLock }) as Promise<number[]>;
  }
}
