import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { LuaScript, REDIS_CLIENT } from '@app/redis';
import { HoldStore, WAKE_KEY } from '../hold-store';

export const CLAIM_DUE = new LuaScript(__dirname, {
  file: 'claim-due-shards.lua',
  keys: ['wake'],
  argv: ['laterMs', 'shards...'],
} as const);

/**
 * The wake index (hold-keys.ts, WAKE_KEY: shard -> when it next has work) as the sweeper uses it: which
 * owned shards have work now (one read of one key per tick, whatever the number of shards or events), and
 * after a sweep, when the shard next has work (the heads of its indexes). Changes that bring a shard's work
 * forward lower its entry themselves (HoldStore.wakeFor); a sweep only ever lowers it too, after the claim
 * moved it past what the sweep will see (claim-due-shards.lua), so neither overwrites the other.
 */
@Injectable()
export class ShardWake {
  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    private readonly store: HoldStore,
  ) {}

  /**
   * The shards of `owned` that have work now (or no entry), each moved `laterMs` ahead until its sweep
   * sets it; and Redis's time of the claim.
   */
  async claimDue(owned: readonly number[], laterMs: number): Promise<{ nowMs: number; due: number[] }> {
    const [now, ...due] = (await CLAIM_DUE.run(
      this.redis,
      { wake: WAKE_KEY },
      { laterMs, shards: owned },
    )) as (string | number)[];
    return { nowMs: Number(now), due: due.map(Number) };
  }

  /**
   * After a sweep of `shard`: its entry is lowered to when the shard next has work: now if the sweep left
   * work (`more`), else the earliest head of its due, gc and events indexes, at most `latestMs`.
   */
  async swept(shard: number, more: boolean, latestMs: number): Promise<void> {
    let next = latestMs;
    if (more) {
      next = 0;
    } else {
      const k = this.store.layout.shardKeys(shard);
      const heads = await Promise.all(
        [k.due, k.gc, k.events].map((key) => this.redis.zrange(key, 0, 0, 'WITHSCORES')),
      );
      for (const head of heads) {
        if (head.length === 2) {
          next = Math.min(next, Number(head[1]));
        }
      }
    }
    await this.redis.zadd(WAKE_KEY, 'LT', next, shard);
  }

  /**
   * The shards of `shards` whose due index has a hold due at `nowMs` (Redis time): a wake-up that never
   * came (its write failed, or Redis lost it while keeping the hold). One read per shard.
   */
  async overdue(shards: readonly number[], nowMs: number): Promise<number[]> {
    const heads = await Promise.all(
      shards.map((s) => this.redis.zrange(this.store.layout.shardKeys(s).due, 0, 0, 'WITHSCORES')),
    );
    return shards.filter((_s, i) => heads[i].length === 2 && Number(heads[i][1]) <= nowMs);
  }
}
