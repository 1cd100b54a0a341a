import Redis, { Cluster } from 'ioredis';

/** A single Redis or a Redis Cluster: callers issue the same commands, scripts and pipelines on both. */
export type RedisClient = Redis | Cluster;

export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisClientOptions {
  /** A single Redis. Exactly one of `url` and `clusterNodes` (the seat API's config refuses both or neither). */
  url?: string;
  /** Seed nodes of a Redis Cluster; the client learns the others and the slot map from them. */
  clusterNodes?: RedisNode[];
  keyPrefix?: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  /** Batch the commands of one event-loop turn into one write (ioredis enableAutoPipelining). */
  autoPipelining?: boolean;
  /** Connection name shown by CLIENT LIST: helps when reading a busy Redis. */
  name?: string;
}

/** Reconnection backoff of both kinds of client: 100 ms, 200 ms, ... capped at 1 s, forever. */
export const reconnectDelayMs = (attempt: number): number => Math.min(50 * 2 ** Math.min(attempt, 5), 1000);
