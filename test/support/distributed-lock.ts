/** What the lock library's tests share: a client like the service's, a lock service on it, the child holders. */
import * as path from 'node:path';
import Redis, { Cluster } from 'ioredis';
import { DistributedLockModuleOptions, DistributedLockService } from '@app/distributed-lock';

/** Child processes that hold a lock while their parent test kills or pauses them. */
export const LOCK_HOLDERS = path.join(__dirname, 'lock-holders');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client like the service's: this test file's key prefix, bounded command timeout, fail fast. */
export async function testRedis(url?: string): Promise<Redis> {
  const nodes = process.env.REDIS_CLUSTER_NODES;
  if (!url && nodes) {
    // the cluster run (TEST_REDIS=cluster): the same client options on an ioredis Cluster
    const cluster = new Cluster(
      nodes.split(',').map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })),
      {
        lazyConnect: true,
        keyPrefix: process.env.REDIS_KEY_PREFIX,
        enableOfflineQueue: false,
        scaleReads: 'master',
        redisOptions: { commandTimeout: 1000, connectTimeout: 1000, maxRetriesPerRequest: 1 },
      },
    );
    cluster.on('error', () => undefined);
    await cluster.connect();
    return cluster as unknown as Redis;
  }
  const redis = new Redis(url ?? process.env.REDIS_URL!, {
    lazyConnect: true,
    keyPrefix: process.env.REDIS_KEY_PREFIX,
    commandTimeout: 1000,
    connectTimeout: 1000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => 100,
  });
  redis.on('error', () => undefined); // tests assert on command errors; connection noise is expected
  await redis.connect();
  return redis;
}

export function lockService(
  redis: Redis,
  options: Partial<DistributedLockModuleOptions> = {},
): DistributedLockService {
  return new DistributedLockService({ redis, ...options });
}
