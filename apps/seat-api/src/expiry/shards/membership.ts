import type Redis from 'ioredis';
import { INSTANCES_KEY } from '../../hold-store';

/**
 * Heartbeat of one instance into the membership set (one sorted set, instance -> Redis time of its last
 * beat): beats, forgets instances silent for ARGV[2] ms, and answers how many are live. One script, so
 * every instance counts the same way; Redis time, so no app clock takes part.
 */
const HEARTBEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])
`;

const COMMAND = 'holdShardHeartbeat';

type Beat = Record<typeof COMMAND, (key: string, id: string, ttlMs: number) => Promise<number>>;

export class Membership {
  constructor(
    private readonly redis: Redis,
    readonly instanceId: string,
    private readonly ttlMs: number,
  ) {
    if (!(COMMAND in redis)) {
      redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: HEARTBEAT });
    }
  }

  /** Beats and returns the number of live instances (this one included). */
  async beat(): Promise<number> {
    return Number(await (this.redis as unknown as Beat)[COMMAND](INSTANCES_KEY, this.instanceId, this.ttlMs));
  }

  async leave(): Promise<void> {
    await this.redis.zrem(INSTANCES_KEY, this.instanceId);
  }
}
