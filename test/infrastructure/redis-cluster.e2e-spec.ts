/**
 * The Redis client on a real Redis Cluster (3 masters + 3 replicas, `scripts/infra.sh cluster up`):
 * REDIS_CLUSTER_NODES switches it to an ioredis Cluster with the same key prefix, scripts, auto-pipelining
 * and fail-fast behaviour as on one Redis; boot refuses both or neither of REDIS_URL/REDIS_CLUSTER_NODES;
 * a killed master's slots keep taking writes once its replica is promoted.
 * Without redis-server: skipped, loudly, in the plain run; a failure in the cluster run (redis-cluster-suite).
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Test } from '@nestjs/testing';
import { Cluster } from 'ioredis';
import { AppConfig, ConfigModule, loadConfig } from '@app/config';
import {
  connectRedis,
  createRedisClient,
  REDIS_CLIENT,
  RedisClient,
  RedisHealthIndicator,
  RedisModule,
  luaScript,
  RedisScript,
} from '@app/redis';
import { clusterPorts, clusterSeeds, onNode } from '@test/support/cluster-nodes';
import { eventually } from '@test/support/eventually';
import { startPrivateRedis } from '@test/support/private-redis';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';
import { SET_PAIR, TEST_LUA_DIR } from '@test/support/lua/manifest';

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '..', '..');
const ports = clusterPorts();
const seeds = clusterSeeds(ports);
const prefix = process.env.REDIS_KEY_PREFIX!;
const suite = redisClusterSuite('redis-cluster.e2e-spec');

// Sets both keys of one hash tag and answers the keys as Redis saw them (so with the prefix).
const PAIR = luaScript(TEST_LUA_DIR, SET_PAIR);
/** The same script with its key count passed per call (as the service runs its scripts). */
const PAIR_PER_CALL = new RedisScript(PAIR);

type Pair = (...args: (string | number)[]) => Promise<string[]>;
interface Scripted {
  pairFixed: Pair; // numberOfKeys in the definition (as the hold store defines its scripts)
}

/** RedisModule as the seat API wires it: options from its AppConfig. */
const seatApiRedis = RedisModule.forRootAsync({
  inject: [AppConfig],
  useFactory: (c: AppConfig) => ({ ...c.redis, name: 'seat-hold' }),
});

const clusterUp = () =>
  execFileSync('bash', [path.join(root, 'scripts', 'infra.sh'), 'cluster', 'up'], { stdio: 'inherit' });
const clusterEnv = (extra: Record<string, string> = {}) => ({
  ...process.env,
  REDIS_URL: '',
  REDIS_CLUSTER_NODES: seeds,
  ...extra,
});

/** CLUSTER SHARDS, as seen by `from`: the master port serving each slot range. */
async function masters(from: number): Promise<Array<{ from: number; to: number; port: number }>> {
  const shards = (await onNode(from, (r) => r.call('CLUSTER', 'SHARDS'))) as unknown[][];
  const field = (kv: unknown[], name: string) => kv[kv.indexOf(name) + 1];
  return shards.flatMap((shard) => {
    const slots = field(shard, 'slots') as number[];
    const master = (field(shard, 'nodes') as unknown[][]).find(
      (n) => field(n, 'role') === 'master' && field(n, 'health') === 'online',
    );
    const ranges: Array<{ from: number; to: number; port: number }> = [];
    for (let i = 0; master && i < slots.length; i += 2) {
      ranges.push({ from: slots[i], to: slots[i + 1], port: Number(field(master, 'port')) });
    }
    return ranges;
  });
}

async function masterOf(key: string, from = ports[0]): Promise<{ slot: number; port: number | undefined }> {
  const slot = Number(await onNode(from, (r) => r.call('CLUSTER', 'KEYSLOT', key)));
  return { slot, port: (await masters(from)).find((m) => m.from <= slot && slot <= m.to)?.port };
}

/** Hash tags whose prefixed keys live on `count` different masters. */
async function tagsOnDifferentMasters(count: number): Promise<Array<{ tag: string; port: number }>> {
  const found = new Map<number, string>();
  for (let i = 0; found.size < count; i++) {
    const { port } = await masterOf(`${prefix}{ev-${i}}:a`);
    if (port !== undefined && !found.has(port)) {
      found.set(port, `ev-${i}`);
    }
  }
  return [...found].map(([port, tag]) => ({ tag, port }));
}

async function clusterClient(name: string): Promise<RedisClient & Scripted> {
  const client = createRedisClient({ ...loadConfig(clusterEnv()).redis, name });
  await connectRedis(client);
  client.defineCommand('pairFixed', { numberOfKeys: 2, lua: PAIR });
  return client as RedisClient & Scripted;
}

suite('Redis client on a Redis Cluster', () => {
  let client: RedisClient & Scripted;

  beforeAll(async () => {
    clusterUp(); // idempotent: starts, repairs or leaves the cluster alone
    client = await clusterClient('test-cluster');
  });

  afterAll(async () => {
    await client?.quit().catch(() => client.disconnect());
  });

  it('is a Cluster client with the key prefix, and auto-pipelines one turn per node', async () => {
    expect(client).toBeInstanceOf(Cluster);
    const [a, b] = await tagsOnDifferentMasters(2);
    const sets = [a, b].map(({ tag }) => client.set(`{${tag}}:plain`, tag, 'PX', 60_000));
    expect(client.autoPipelineQueueSize).toBe(2); // queued for one write per node, not sent one by one
    expect(await Promise.all(sets)).toEqual(['OK', 'OK']);
    for (const { tag, port } of [a, b]) {
      expect(await onNode(port, (r) => r.get(`${prefix}{${tag}}:plain`))).toBe(tag);
    }
  });

  it('runs a two-key script of one hash tag on keys that live on different masters, in one turn', async () => {
    const tags = await tagsOnDifferentMasters(3);
    const calls = tags.flatMap(({ tag }) => [
      client.pairFixed(`{${tag}}:a`, `{${tag}}:b`, 'x', 'y'),
      PAIR_PER_CALL.run(client, [`{${tag}}:c`, `{${tag}}:d`], ['x', 'y']),
    ]);
    const results = await Promise.allSettled(calls);
    expect(results).toEqual(
      tags.flatMap(({ tag }) => [
        { status: 'fulfilled', value: [`${prefix}{${tag}}:a`, `${prefix}{${tag}}:b`] },
        { status: 'fulfilled', value: [`${prefix}{${tag}}:c`, `${prefix}{${tag}}:d`] },
      ]),
    );
    for (const { tag, port } of tags) {
      expect(await onNode(port, (r) => r.mget(`${prefix}{${tag}}:a`, `${prefix}{${tag}}:d`))).toEqual([
        'x',
        'y',
      ]);
    }
  });

  it('still runs its scripts after SCRIPT FLUSH on every node (EVALSHA falls back to EVAL on NOSCRIPT)', async () => {
    const tags = await tagsOnDifferentMasters(3);
    await Promise.all(tags.map(({ tag }) => client.pairFixed(`{${tag}}:a`, `{${tag}}:b`, '1', '2')));
    await Promise.all(ports.map((p) => onNode(p, (r) => r.script('FLUSH'))));
    for (const { tag } of tags) {
      expect(await client.pairFixed(`{${tag}}:a`, `{${tag}}:b`, '3', '4')).toHaveLength(2);
      expect(await PAIR_PER_CALL.run(client, [`{${tag}}:c`, `{${tag}}:d`], ['3', '4'])).toHaveLength(2);
    }
    const sha = (await onNode(ports[0], (r) => r.script('LOAD', PAIR))) as string;
    for (const { port } of tags) {
      expect(await onNode(port, (r) => r.script('EXISTS', sha))).toEqual([1]); // loaded again by the fallback
    }
  });

  it('boots RedisModule on the cluster from REDIS_CLUSTER_NODES and reports it healthy', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, clusterEnv());
    try {
      const moduleRef = await Test.createTestingModule({
        imports: [ConfigModule.forRoot(AppConfig), seatApiRedis],
      }).compile();
      try {
        expect(moduleRef.get(REDIS_CLIENT)).toBeInstanceOf(Cluster);
        expect(await moduleRef.get(RedisHealthIndicator).isHealthy('redis')).toEqual({
          redis: expect.objectContaining({ status: 'up', clusterState: 'ok' }),
        });
      } finally {
        await moduleRef.close();
      }
    } finally {
      process.env = saved;
    }
  });

  it('refuses a configuration that names both REDIS_URL and REDIS_CLUSTER_NODES, or neither', async () => {
    const both = clusterEnv({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(() => loadConfig(both)).toThrow(/REDIS_URL and REDIS_CLUSTER_NODES are both set/);
    expect(() => loadConfig({ ...both, REDIS_URL: '', REDIS_CLUSTER_NODES: '' })).toThrow(
      /neither REDIS_URL nor REDIS_CLUSTER_NODES is set/i,
    );
    expect(() => loadConfig(clusterEnv({ REDIS_CLUSTER_NODES: '127.0.0.1' }))).toThrow(/REDIS_CLUSTER_NODES/);
    const saved = { ...process.env };
    Object.assign(process.env, both);
    try {
      await expect(
        Test.createTestingModule({ imports: [ConfigModule.forRoot(AppConfig), seatApiRedis] }).compile(),
      ).rejects.toThrow(/REDIS_URL and REDIS_CLUSTER_NODES are both set/);
    } finally {
      process.env = saved;
    }
  });

  it('fails fast, with an error, when every node of the cluster is stopped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'one-node-cluster-'));
    const node = await startPrivateRedis([
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      path.join(dir, 'nodes.conf'),
      '--cluster-announce-ip', // a node that never met another does not know its own address
      '127.0.0.1',
      '--cluster-node-timeout',
      '1000',
    ]);
    let stopped = false;
    try {
      const env = clusterEnv({
        REDIS_CLUSTER_NODES: `127.0.0.1:${node.port}`,
        REDIS_COMMAND_TIMEOUT_MS: '500',
      });
      // a cluster that answers but says cluster_state:fail (no slot served yet): boot gives up, not hangs
      const early = createRedisClient({ ...loadConfig(env).redis, name: 'test-early' });
      await expect(connectRedis(early, 1500)).rejects.toThrow(/not ready within 1500 ms/);
      await node.client.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
      await eventually(
        async () => String(await node.client.call('CLUSTER', 'INFO')).includes('cluster_state:ok'),
        10_000,
        'one-node cluster ok',
      );
      const lone = createRedisClient({ ...loadConfig(env).redis, name: 'test-lone' }) as RedisClient &
        Scripted;
      await connectRedis(lone);
      lone.defineCommand('pairFixed', { numberOfKeys: 2, lua: PAIR });
      try {
        expect(await lone.pairFixed('{t}:a', '{t}:b', '1', '2')).toHaveLength(2);
        await node.stop();
        stopped = true;
        // Each of these would hang forever with an offline queue; the jest timeout is the hang detector.
        await expect(lone.set('{t}:a', 'v')).rejects.toThrow();
        await expect(lone.pairFixed('{t}:a', '{t}:b', '1', '2')).rejects.toThrow();
        await expect(lone.get('{t}:a')).rejects.toThrow();
      } finally {
        lone.disconnect();
      }
      const dead = createRedisClient({ ...loadConfig(env).redis, name: 'test-dead' });
      await expect(connectRedis(dead)).rejects.toThrow(); // boot does not hang either
      dead.disconnect();
    } finally {
      if (!stopped) {
        await node.stop(); // once: a second stop() waits for an exit that already happened
      }
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  describe('failover', () => {
    afterAll(() => clusterUp()); // the killed node restarts and rejoins (as a replica): whole for later tests

    it("keeps taking writes to a killed master's slots once its replica is promoted", async () => {
      const [{ tag, port: killed }] = await tagsOnDifferentMasters(1);
      const key = `{${tag}}:failover`;
      await client.set(key, 'before', 'PX', 60_000);
      const survivor = ports.find((p) => p !== killed)!;
      const { slot } = await masterOf(`${prefix}${key}`, survivor);

      // the node names its own pid (a pid file exists only in the checkout that started the cluster)
      const info = await onNode(killed, (r) => r.info('server'));
      process.kill(Number(/process_id:(\d+)/.exec(info)![1]), 'SIGKILL');

      let written = '';
      let promoted: number | undefined;
      await eventually(
        async () => {
          const value = `after-${Date.now()}`;
          const ok = await client.set(key, value, 'PX', 60_000).then(
            () => true,
            () => false, // CLUSTERDOWN / connection refused while the replica is elected
          );
          if (ok) {
            written = value;
          }
          promoted = (await masterOf(`${prefix}${key}`, survivor)).port;
          return ok && promoted !== undefined && promoted !== killed;
        },
        30_000,
        `slot ${slot} served by a promoted replica and writable through the client`,
      );
      expect(await client.get(key)).toBe(written);
      expect(await onNode(promoted!, (r) => r.get(`${prefix}${key}`))).toBe(written);
      expect(await client.pairFixed(`{${tag}}:a`, `{${tag}}:b`, 'p', 'q')).toHaveLength(2);

      clusterUp();
      expect(await onNode(killed, (r) => r.info('replication'))).toMatch(/role:slave/);
      expect(await client.get(key)).toBe(written);
    }, 90_000);
  });
});
