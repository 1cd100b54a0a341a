import type Redis from 'ioredis';
import { LuaScript } from '@app/redis';
import { INSTANCES_KEY } from '../hold-store';

/** heartbeat.lua: beats, forgets silent instances, answers how many are live. */
export const HEARTBEAT = new LuaScript(__dirname, {
  file: 'heartbeat.lua',
  keys: ['members'],
  argv: ['instanceId', 'ttlMs'],
} as const);

/** One instance's place in the set of live instances (INSTANCES_KEY), which shard ownership is sized by. */
export class Membership {
  constructor(
    private readonly redis: Redis,
    readonly instanceId: string,
    private readonly ttlMs: number,
  ) {}

  /** Beats and returns the number of live instances (this one included). */
  async beat(): Promise<number> {
    return Number(
      await HEARTBEAT.run(
        this.redis,
        { members: INSTANCES_KEY },
        { instanceId: this.instanceId, ttlMs: this.ttlMs },
      ),
    );
  }

  async leave(): Promise<void> {
    await this.redis.zrem(INSTANCES_KEY, this.instanceId);
  }
}
