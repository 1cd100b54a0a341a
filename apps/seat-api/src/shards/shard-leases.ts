import type Redis from 'ioredis';
import { LuaScript } from '@app/redis';
import { SHARD_LEASES_KEY } from '../hold-store';

export const RENEW_AND_TAKE = new LuaScript(__dirname, {
  file: 'shard-leases.lua',
  keys: ['leases'],
  argv: ['owner', 'leaseMs', 'take', 'shardCount', 'start', 'keptShards...'],
} as const);
export const RELEASE = new LuaScript(__dirname, {
  file: 'release-shard-leases.lua',
  keys: ['leases'],
  argv: ['owner', 'shards...'],
} as const);

/** What one renewal found: the kept shards still this instance's, and the free ones it took. */
export interface LeaseRound {
  renewed: number[];
  taken: number[];
}

/**
 * The shard leases of one instance, all in one Redis hash (SHARD_LEASES_KEY, see shard-leases.lua): one
 * script call renews every lease the instance keeps and takes free shards, however many it owns. Leases
 * run in Redis time; the caller keeps its own deadline (the last renewal's send time + the lease) to stop
 * working on its shards when it cannot reach Redis.
 */
export class ShardLeases {
  constructor(
    private readonly redis: Redis,
    readonly owner: string,
    private readonly leaseMs: number,
  ) {}

  /** Renews `keep` (those still ours come back in `renewed`) and takes up to `take` free shards of `shards`. */
  async renewAndTake(keep: readonly number[], take: number, shards: number): Promise<LeaseRound> {
    const start = Math.floor(Math.random() * shards);
    const [renewed, taken] = (await RENEW_AND_TAKE.run(
      this.redis,
      { leases: SHARD_LEASES_KEY },
      {
        owner: this.owner,
        leaseMs: this.leaseMs,
        take: Math.max(0, take),
        shardCount: shards,
        start,
        keptShards: keep,
      },
    )) as [number[], number[]];
    return { renewed: renewed.map(Number), taken: taken.map(Number) };
  }

  /** Gives these shards' leases back (only those still ours). */
  async release(shards: readonly number[]): Promise<void> {
    if (shards.length > 0) {
      await RELEASE.run(this.redis, { leases: SHARD_LEASES_KEY }, { owner: this.owner, shards });
    }
  }
}
