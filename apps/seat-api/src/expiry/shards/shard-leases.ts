import type Redis from 'ioredis';
import { luaScript } from '@app/redis';
import { SHARD_LEASES_KEY } from '../../hold-store';

const RENEW_AND_TAKE = luaScript(__dirname, {
  file: 'shard-leases.lua',
  keys: ['leases'],
  argv: ['owner', 'leaseMs', 'take', 'shardCount', 'start', 'keptShard...'],
});
const RELEASE = luaScript(__dirname, {
  file: 'release-shard-leases.lua',
  keys: ['leases'],
  argv: ['owner', 'shard...'],
});

const RENEW_COMMAND = 'holdShardLeases';
const RELEASE_COMMAND = 'holdShardLeasesRelease';

type Commands = Record<
  typeof RENEW_COMMAND,
  (key: string, ...args: (string | number)[]) => Promise<unknown>
> &
  Record<typeof RELEASE_COMMAND, (key: string, ...args: (string | number)[]) => Promise<unknown>>;

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
  ) {
    if (!(RENEW_COMMAND in redis)) {
      redis.defineCommand(RENEW_COMMAND, { numberOfKeys: 1, lua: RENEW_AND_TAKE });
      redis.defineCommand(RELEASE_COMMAND, { numberOfKeys: 1, lua: RELEASE });
    }
  }

  /** Renews `keep` (those still ours come back in `renewed`) and takes up to `take` free shards of `shards`. */
  async renewAndTake(keep: readonly number[], take: number, shards: number): Promise<LeaseRound> {
    const start = Math.floor(Math.random() * shards);
    const [renewed, taken] = (await (this.redis as unknown as Commands)[RENEW_COMMAND](
      SHARD_LEASES_KEY,
      this.owner,
      this.leaseMs,
      Math.max(0, take),
      shards,
      start,
      ...keep,
    )) as [number[], number[]];
    return { renewed: renewed.map(Number), taken: taken.map(Number) };
  }

  /** Gives these shards' leases back (only those still ours). */
  async release(shards: readonly number[]): Promise<void> {
    if (shards.length > 0) {
      await (this.redis as unknown as Commands)[RELEASE_COMMAND](SHARD_LEASES_KEY, this.owner, ...shards);
    }
  }
}
