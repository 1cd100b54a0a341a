/**
 * The hot path: one EVALSHA to acquire, one to release, nothing else.
 * Counted by a private redis-server's own command statistics, so no other test's traffic is mixed in.
 */
import { startPrivateRedis, PrivateRedis } from '@test/support/private-redis';
import { lockService, testRedis } from '@test/support/distributed-lock';

let server: PrivateRedis;
afterAll(() => server?.stop());

async function commandCalls(): Promise<Record<string, number>> {
  const info = await server.client.info('commandstats');
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls[m[1]] = Number(m[2]);
  }
  return calls;
}

it('acquire + release cost exactly two EVALSHA, with a fixed lease or the watchdog', async () => {
  server = await startPrivateRedis();
  const redis = await testRedis(server.url);
  const locks = lockService(redis);
  await (await locks.acquire('warm-up', { leaseMs: 1000 })).release(); // loads the scripts (one EVAL each)
  await server.client.config('RESETSTAT');
  for (let i = 0; i < 10; i++) {
    await (await locks.acquire(`fixed-${i}`, { leaseMs: 5000 })).release();
    await (await locks.acquire(`watched-${i}`)).release();
  }
  const calls = await commandCalls();
  delete calls['config|resetstat'];
  delete calls.info; // this test's own
  // the commands run inside the scripts are counted too, each exactly as often as its script ran
  expect(calls).toEqual({ evalsha: 40, pttl: 20, set: 20, incr: 20, get: 20, del: 20 });
  redis.disconnect();
});
