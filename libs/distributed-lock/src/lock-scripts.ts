import { fixedKeyCount, luaScript } from '@app/redis';
import type Redis from 'ioredis';
import { LOCK_LUA_DIR, LOCK_SCRIPTS } from './lua/manifest';

type ScriptCommands = Record<keyof typeof LOCK_SCRIPTS, (...a: unknown[]) => Promise<unknown>>;

/**
 * The lock's Lua scripts (lua/manifest.ts) as typed calls, each defined on the client with ioredis's
 * defineCommand: one EVALSHA per call (EVAL when Redis lost the script).
 * The commands are looked up on the client at each call, so a test can spy on `redis.dlockAcquire`.
 */
export class LockScripts {
  private readonly commands: ScriptCommands;

  constructor(redis: Redis) {
    for (const [name, spec] of Object.entries(LOCK_SCRIPTS)) {
      if (!(name in redis)) {
        // every lock script's key count is passed per call (a lock has any number of keys)
        redis.defineCommand(name, { numberOfKeys: fixedKeyCount(spec), lua: luaScript(LOCK_LUA_DIR, spec) });
      }
    }
    this.commands = redis as unknown as ScriptCommands;
  }

  /** [1, fencingToken] when taken; [0, pttl] when held (pttl -1: held by a key without expiry). */
  acquire(fenceKey: string, redisKeys: readonly string[], owner: string, leaseMs: number) {
    return this.commands.dlockAcquire(
      redisKeys.length + 1,
      fenceKey,
      ...redisKeys,
      owner,
      leaseMs,
    ) as Promise<[number, number]>;
  }

  /** How many of the keys still carried our owner token (and were deleted). */
  async release(redisKeys: readonly string[], owner: string): Promise<number> {
    return Number(await this.commands.dlockRelease(redisKeys.length, ...redisKeys, owner));
  }

  /** 1 extended, 0 not ours. */
  async extend(redisKeys: readonly string[], owner: string, leaseMs: number): Promise<number> {
    return Number(await this.commands.dlockExtend(redisKeys.length, ...redisKeys, owner, leaseMs));
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
    return this.commands.dlockRenew(keys.length, ...keys, ...args) as Promise<number[]>;
  }
}
