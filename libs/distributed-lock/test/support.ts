import Redis from 'ioredis';
import { DistributedLockModuleOptions } from '../src';
import { DistributedLockService } from '../src/distributed-lock.service';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client like the service's: this test file's key prefix, bounded command timeout, fail fast. */
export async function testRedis(url = process.env.REDIS_URL!): Promise<Redis> {
  const redis = new Redis(url, {
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

export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`condition not met within ${timeoutMs} ms`);
    }
    await sleep(20);
  }
}
