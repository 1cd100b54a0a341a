/**
 * RedisScript, a script whose key count is passed per call (the lock library's, the rate-limit sync), on
 * the Cluster client against the local Redis Cluster (`scripts/infra.sh cluster up`,
 * REDIS_CLUSTER_PORT): with auto-pipelining calls join the batch of their keys' master, calls for every
 * master in one tick all answer, a node that lost the script gets it again (EVAL after NOSCRIPT), and a
 * call whose keys span slots fails alone without failing the calls batched with it. And the same script
 * on a single Redis client, where keys of any slots go together.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import Redis, { Cluster } from 'ioredis';
import { clusterPorts, onNode } from '@test/support/cluster-nodes';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';
import { connectRedis, createRedisClient } from './create-redis-client';
import { keySlot } from './key-slot';
import { luaScript } from './lua-script';
import { RedisScript } from './script-commands';
import { SET_ALL as SET_ALL_SPEC, TEST_LUA_DIR } from '@test/support/lua/manifest';

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '..', '..', '..');
const ports = clusterPorts();
const prefix = `${process.env.REDIS_KEY_PREFIX ?? 'test:'}cluster-scripts:`;
const suite = redisClusterSuite('script-commands.int-spec');

/** SET every key to its value and answer the number of keys (test/support/lua/set-all.lua). */
const SET_ALL = new RedisScript(luaScript(TEST_LUA_DIR, SET_ALL_SPEC));

/** One key per master: the slot map tells which master serves a key. */
function keysOnEveryMaster(cluster: Cluster, tag: string): string[] {
  const byMaster = new Map<string, string>();
  for (let i = 0; byMaster.size < cluster.nodes('master').length && i < 10_000; i++) {
    const key = `{${tag}-${i}}:k`;
    const master = cluster.slots[keySlot(prefix + key)][0];
    if (!byMaster.has(master)) {
      byMaster.set(master, key);
    }
  }
  return [...byMaster.values()];
}

suite('RedisScript on the Cluster client', () => {
  let cluster: Cluster;
  const setAll = (keys: string[], value: string) => SET_ALL.run(cluster, keys, [value]);

  beforeAll(async () => {
    execFileSync('bash', [path.join(root, 'scripts', 'infra.sh'), 'cluster', 'up'], { stdio: 'inherit' });
    cluster = createRedisClient({
      clusterNodes: ports.map((port) => ({ host: '127.0.0.1', port })),
      keyPrefix: prefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      autoPipelining: true,
      name: 'cluster-scripts-spec',
    }) as Cluster;
    await connectRedis(cluster);
  });
  afterAll(async () => {
    await cluster?.quit().catch(() => cluster.disconnect());
  });

  it('batches calls with the auto-pipeline of their master, for every master in one tick', async () => {
    const keys = keysOnEveryMaster(cluster, `batch-${Date.now()}`);
    expect(keys.length).toBe(3);
    const queued = cluster.autoPipelineQueueSize;
    const calls = keys.map((k) => setAll([k, `${k}:second`], 'v'));
    // queued, not sent: they leave with the tick's batch of their master
    expect(cluster.autoPipelineQueueSize - queued).toBe(keys.length);
    await expect(Promise.all(calls)).resolves.toEqual([2, 2, 2]);
    // the keys got the client's prefix, as with ioredis's own commands
    for (const k of keys) {
      const master = Number(cluster.slots[keySlot(prefix + k)][0].split(':')[1]);
      await expect(onNode(master, (r) => r.get(`${prefix}${k}:second`))).resolves.toBe('v');
    }
  });

  it('loads the script again on a node that lost it (EVAL after NOSCRIPT)', async () => {
    const keys = keysOnEveryMaster(cluster, `noscript-${Date.now()}`);
    await Promise.all(keys.map((k) => setAll([k], 'before')));
    await Promise.all(cluster.nodes('master').map((n) => n.script('FLUSH')));
    await expect(Promise.all(keys.map((k) => setAll([k], 'after')))).resolves.toEqual([1, 1, 1]);
    await expect(cluster.get(keys[0])).resolves.toBe('after');
  });

  it('fails a call whose keys span slots alone, not the calls batched with it', async () => {
    const [a, b] = keysOnEveryMaster(cluster, `cross-${Date.now()}`);
    const crossing = setAll([a, b], 'v');
    const fine = setAll([a], 'v');
    await expect(crossing).rejects.toThrow(/CROSSSLOT|same slot/);
    await expect(fine).resolves.toBe(1);
  });
});

describe('RedisScript on a single Redis client', () => {
  it('runs keys of any slots in one call, auto-pipelined, and loads the script again after NOSCRIPT', async () => {
    const redis = createRedisClient({
      url: process.env.REDIS_URL!,
      keyPrefix: prefix,
      connectTimeoutMs: 2000,
      commandTimeoutMs: 2000,
      autoPipelining: true,
      name: 'single-scripts-spec',
    });
    await connectRedis(redis);
    try {
      const run = `single-${Date.now()}`;
      const keys = [`{${run}-a}:k`, `{${run}-b}:k`, `{${run}-c}:k`];
      await expect(SET_ALL.run(redis, keys, ['v'])).resolves.toBe(3);
      await expect(redis.mget(...keys)).resolves.toEqual(['v', 'v', 'v']);
      // not the shared Redis's cache (other files' scripts): this script only, as a flush would do to it
      const server = new Redis(process.env.REDIS_URL!);
      const flushed = new RedisScript(`${SET_ALL.lua}-- ${run}\n`);
      try {
        await expect(server.script('EXISTS', flushed.sha)).resolves.toEqual([0]);
        await expect(flushed.run(redis, keys, ['w'])).resolves.toBe(3); // NOSCRIPT, then EVAL
        await expect(server.script('EXISTS', flushed.sha)).resolves.toEqual([1]);
      } finally {
        server.disconnect();
      }
    } finally {
      await redis.quit();
    }
  });
});
