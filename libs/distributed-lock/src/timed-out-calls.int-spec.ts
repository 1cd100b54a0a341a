/**
 * A lock call that times out on the client can still run in Redis later. Uses a
 * private redis-server paused with `CLIENT PAUSE ... WRITE`: our scripts wait in its input buffer, the
 * client gives up after its commandTimeout, then the pause ends and Redis runs them.
 */
import Redis from 'ioredis';
import { LockBackendError, LockOutcomeUnknownError } from '.';
import { startPrivateRedis, PrivateRedis } from '@test/support/private-redis';
import { eventually } from '@test/support/eventually';
import { lockService, testRedis } from '@test/support/distributed-lock';

let server: PrivateRedis;
const clients: Redis[] = [];
afterAll(async () => {
  clients.forEach((c) => c.disconnect());
  await server?.stop();
});

/** The service's client, with a short command timeout so a paused server makes it give up. */
async function impatientClient(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    keyPrefix: process.env.REDIS_KEY_PREFIX,
    commandTimeout: 150,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  });
  redis.on('error', () => undefined);
  await redis.connect();
  clients.push(redis);
  return redis;
}

it('an acquire that times out on the client but runs later leaves no orphan lock', async () => {
  server = await startPrivateRedis();
  const admin = await testRedis(server.url); // reads are not paused by CLIENT PAUSE WRITE
  clients.push(admin);
  const locks = lockService(await impatientClient(server.url));
  const other = lockService(admin);
  // the script is loaded on the connection (its first call is an EVAL), as on a warm service
  await (await locks.acquire('warm-up', { leaseMs: 1000 })).release();

  await admin.call('CLIENT', 'PAUSE', '1500', 'WRITE');
  const err = await locks.acquire('k', { leaseMs: 60_000 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LockOutcomeUnknownError);
  expect(err).toBeInstanceOf(LockBackendError); // callers that map backend errors keep working
  expect((err as LockOutcomeUnknownError).operation).toBe('acquire');
  expect(locks.heldCount).toBe(0);

  // The pause ends; the acquire runs (the fence counter moves: the orphan existed) and the owner-checked
  // release sent after the timeout, queued behind it on the same connection, removes it at once.
  await eventually(
    async () => (await admin.get('lock:fence:{k}')) === '1' && (await admin.exists('lock:{k}')) === 0,
    5000,
    'orphan acquired then removed',
  );
  const next = await other.tryAcquire('k', { leaseMs: 1000 });
  expect(next).not.toBeNull();
  expect(next!.fencingToken).toBe(2);
  await next!.release();
});
