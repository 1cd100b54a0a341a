import { Inject, Injectable } from '@nestjs/common';
import { REDIS_CLIENT } from '@app/redis';
import Redis from 'ioredis';

/** One set for the whole deployment (no hash tag needed: plain SADD/SREM/SRANDMEMBER on one key). */
const STUCK_KEY = 'confirm-reconciler:stuck';

/**
 * Holds whose confirm passed its deadline while still CONFIRMING, as the sweeper found them: a Redis
 * set, so the sweeper only records them (one SADD, never a PostgreSQL wait) and any instance's
 * reconciler can pick them up. An entry leaves the set once the hold is no longer CONFIRMING; the
 * sweeper reports a still-stuck hold again every few seconds, so a lost entry comes back by itself.
 */
@Injectable()
export class StuckConfirms {
  constructor(@Inject(REDIS_CLIENT) private readonly redis: Redis) {}

  async add(holdIds: readonly string[]): Promise<void> {
    if (holdIds.length > 0) {
      await this.redis.sadd(STUCK_KEY, ...holdIds);
    }
  }

  /** How many are recorded. */
  count(): Promise<number> {
    return this.redis.scard(STUCK_KEY);
  }

  /** Up to `count` of them, in no particular order (a hold that keeps failing does not block the rest). */
  sample(count: number): Promise<string[]> {
    return this.redis.srandmember(STUCK_KEY, count);
  }

  async remove(holdId: string): Promise<void> {
    await this.redis.srem(STUCK_KEY, holdId);
  }
}
