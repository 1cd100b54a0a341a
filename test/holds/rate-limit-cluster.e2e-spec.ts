/**
 * The rate-limit sync on a real Redis Cluster (`scripts/infra.sh cluster up`): one script call carries many
 * callers' counters only when they share a hash slot, so the storage groups them by slot. Many callers
 * spread over every master are counted right, and a second instance sees the shared totals.
 * Without redis-server: skipped, loudly, in the plain run; a failure in the cluster run (redis-cluster-suite).
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { loadConfig } from '@app/config';
import { connectRedis, createRedisClient, RedisClient } from '@app/redis';
import { keySlot } from '../../apps/seat-api/src/rate-limit/key-slot';
import { SyncedThrottlerStorage } from '../../apps/seat-api/src/rate-limit/synced-throttler.storage';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '..', '..');
const firstPort = Number(process.env.REDIS_CLUSTER_PORT ?? 7101);
const seeds = [0, 1, 2, 3, 4, 5].map((i) => `127.0.0.1:${firstPort + i}`).join(',');
const suite = redisClusterSuite('rate-limit-cluster.e2e-spec');

async function clusterClient(name: string): Promise<RedisClient> {
  const env = { ...process.env, REDIS_URL: '', REDIS_CLUSTER_NODES: seeds };
  const client = createRedisClient({ ...loadConfig(env).redis, name });
  await connectRedis(client);
  return client;
}

suite('rate-limit sync on a Redis Cluster', () => {
  let one: RedisClient;
  let two: RedisClient;

  beforeAll(async () => {
    execFileSync('bash', [path.join(root, 'scripts', 'infra.sh'), 'cluster', 'up'], { stdio: 'inherit' });
    one = await clusterClient('rl-cluster-1');
    two = await clusterClient('rl-cluster-2');
  });
  afterAll(async () => {
    await one?.quit().catch(() => one.disconnect());
    await two?.quit().catch(() => two.disconnect());
  });

  it('counts callers of many hash slots in slot groups, and instances share the totals', async () => {
    expect(one.isCluster).toBe(true);
    const a = new SyncedThrottlerStorage(one);
    const b = new SyncedThrottlerStorage(two);
    const ttl = 3_600_000;
    const callers = Array.from({ length: 40 }, (_, i) => `rlc-${i}`);
    // the callers' counters fall in many slots (so a call mixing slots would fail with CROSSSLOT)
    const slots = new Set(callers.map((c) => keySlot(`{holdCreate:${c}}`)));
    expect(slots.size).toBeGreaterThan(10);
    for (const caller of callers) {
      await a.increment(caller, ttl, 100, ttl, 'holdCreate');
      await a.increment(caller, ttl, 100, ttl, 'holdCreate');
    }
    await a.sync();
    // instance b learns a's two hits per caller at its first sync: its own hit, then the total
    for (const caller of callers) {
      await expect(b.increment(caller, ttl, 100, ttl, 'holdCreate')).resolves.toMatchObject({ totalHits: 1 });
    }
    await b.sync();
    for (const caller of callers) {
      await expect(b.increment(caller, ttl, 100, ttl, 'holdCreate')).resolves.toMatchObject({ totalHits: 4 });
    }
  });
});
