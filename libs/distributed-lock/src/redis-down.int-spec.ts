/** Redis stopped mid-test: typed errors, fast, then recovery when it returns. Uses a private redis-server. */
import { LockBackendError } from '.';
import { startPrivateRedis, PrivateRedis } from '@test/support/private-redis';
import { eventually } from '@test/support/eventually';
import { lockService, testRedis } from '@test/support/distributed-lock';

let server: PrivateRedis;
afterAll(() => server?.stop());

it('fails fast with LockBackendError while Redis is down and recovers by itself', async () => {
  server = await startPrivateRedis();
  const redis = await testRedis(server.url);
  const locks = lockService(redis);
  const first = await locks.acquire('k', { leaseMs: 5000 });
  expect(first.fencingToken).toBe(1);

  await server.stop();
  const started = performance.now();
  await expect(locks.acquire('k2', { leaseMs: 1000 })).rejects.toBeInstanceOf(LockBackendError);
  await expect(first.release()).rejects.toBeInstanceOf(LockBackendError);
  expect(performance.now() - started).toBeLessThan(3000);

  server = await server.restart();
  await eventually(async () => {
    const l = await locks.tryAcquire('k3', { leaseMs: 1000 }).catch(() => null);
    if (l) {
      await l.release();
    }
    return l !== null;
  }, 10_000);
  redis.disconnect();
});
