/**
 * HeldLock.pipelineRelease: the release goes out in the same batch as the critical section's
 * last write, so a section costs one round trip less, and Redis still runs the write before the release.
 * Counted on a private redis-server (its `total_reads_processed`), so no other test's traffic is mixed in.
 */
import Redis from 'ioredis';
import { startPrivateRedis, PrivateRedis } from '@test/support/private-redis';
import { lockService } from '@test/support/distributed-lock';

let server: PrivateRedis;
let redis: Redis;
beforeAll(async () => {
  server = await startPrivateRedis();
  // the service's client setting: commands issued in one tick leave in one write
  redis = new Redis(server.url, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** Reads Redis made from client sockets since the last call (this call's own INFO excluded). */
async function readsSince(previous: number): Promise<[number, number]> {
  const info = await server.client.info('stats');
  const now = Number(/total_reads_processed:(\d+)/.exec(info)![1]);
  return [now - previous - 1, now];
}

it('the write runs while the lock is held, the release right behind it', async () => {
  const locks = lockService(redis);
  const lock = await locks.acquire('along', { leaseMs: 5000 });
  // the "last write": reads the lock's own key, so it proves the lock still existed when it ran
  const ttl = await lock.pipelineRelease(redis.pttl('lock:{along}'));
  expect(ttl).toBeGreaterThan(0);
  expect(await redis.exists('lock:{along}')).toBe(0);
  expect(locks.heldCount).toBe(0);
  expect(await lock.release()).toBe('NOT_HELD'); // what runExclusive's finally then does: no Redis call
});

it('costs one round trip less than a write followed by a release', async () => {
  const locks = lockService(redis);
  await (await locks.acquire('warm-up', { leaseMs: 1000 })).release(); // scripts loaded
  const rounds = 10;
  const [, start] = await readsSince(0);
  for (let i = 0; i < rounds; i++) {
    const lock = await locks.acquire(`seq-${i}`, { leaseMs: 5000 });
    await redis.set(`payload-${i}`, 'x');
    await lock.release();
  }
  const [sequential, mark] = await readsSince(start);
  for (let i = 0; i < rounds; i++) {
    const lock = await locks.acquire(`along-${i}`, { leaseMs: 5000 });
    await lock.pipelineRelease(redis.set(`payload-${i}`, 'y'));
  }
  const [along] = await readsSince(mark);
  expect(sequential).toBe(3 * rounds); // acquire, write, release
  expect(along).toBe(2 * rounds); // acquire, write + release
});

it('a write that fails still lets the lock go, and its error is what the caller gets', async () => {
  const locks = lockService(redis);
  const lock = await locks.acquire('failing', { leaseMs: 5000 });
  await redis.set('not-a-list', 'x');
  const err = await lock.pipelineRelease(redis.lpush('not-a-list', 'y')).catch((e: Error) => e);
  expect(String(err)).toMatch(/WRONGTYPE/);
  expect(await redis.exists('lock:{failing}')).toBe(0);
  expect(locks.heldCount).toBe(0);
});

it('a lease that ran out before the release: the write still answers, the lock counts as lost', async () => {
  const lost: string[] = [];
  const locks = lockService(redis, { onLockLost: ({ keys }) => lost.push(...keys) });
  // The lease runs out in Redis, where it matters: a 50 ms lease taken and then slept past failed in CI
  // when the acquire's own reply took longer than 50 ms on the loaded machine (the grant arrived expired,
  // so acquire refused it). A normal lease whose expiry is then set in the past (Redis expires the key at
  // once) has no such race and no sleep.
  const lock = await locks.acquire('short', { leaseMs: 5000 });
  expect(await redis.pexpireat('lock:{short}', 1)).toBe(1);
  expect(await redis.exists('lock:{short}')).toBe(0);
  await expect(lock.pipelineRelease(redis.set('after-lease', 'z'))).resolves.toBe('OK');
  expect(lost).toContain('short');
});
