/**
 * Scripts whose key count is passed per call (`defineCommand(name, { lua })`, as the lock library and the
 * rate-limit sync define theirs) on the Cluster client, against the local Redis Cluster
 * (`scripts/infra.sh cluster up`, REDIS_CLUSTER_PORT): with auto-pipelining they join the batch of their
 * keys' master (rather than each sent alone, one socket write each), calls for every master in one tick
 * all answer, a node that lost the script gets it again (EVAL after NOSCRIPT), a call whose keys span
 * slots fails alone without failing the calls batched with it, and explicit pipelines work as before.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { Cluster } from 'ioredis';
import { clusterPorts, onNode } from '@test/support/cluster-nodes';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';
import { connectRedis, createRedisClient } from './create-redis-client';
import { keySlot } from './key-slot';

jest.setTimeout(60_000);

const root = path.resolve(__dirname, '..', '..', '..');
const ports = clusterPorts();
const prefix = `${process.env.REDIS_KEY_PREFIX ?? 'test:'}cluster-scripts:`;
const suite = redisClusterSuite('create-cluster-client.spec');

/** SET every key to its value and answer the number of keys: KEYS = keys, ARGV[1] = value. */
const SET_ALL = `
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'PX', 60000) end
return #KEYS
`;
type SetAll = { setAll(numberOfKeys: number, ...keysThenValue: string[]): Promise<number> };

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

suite('scripts with a per-call key count on the Cluster client', () => {
  let cluster: Cluster;
  let scripts: SetAll;

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
    cluster.defineCommand('setAll', { lua: SET_ALL }); // no numberOfKeys: passed per call
    scripts = cluster as unknown as SetAll;
  });
  afterAll(async () => {
    await cluster?.quit().catch(() => cluster.disconnect());
  });

  it('batches calls with the auto-pipeline of their master, for every master in one tick', async () => {
    const keys = keysOnEveryMaster(cluster, `batch-${Date.now()}`);
    expect(keys.length).toBe(3);
    const queued = cluster.autoPipelineQueueSize;
    const calls = keys.map((k) => scripts.setAll(2, k, `${k}:second`, 'v'));
    // queued, not sent: they leave with the tick's batch of their master
    expect(cluster.autoPipelineQueueSize - queued).toBe(keys.length);
    await expect(Promise.all(calls)).resolves.toEqual([2, 2, 2]);
    // the keys got the client's prefix, as with ioredis's own script commands
    for (const k of keys) {
      const master = Number(cluster.slots[keySlot(prefix + k)][0].split(':')[1]);
      await expect(onNode(master, (r) => r.get(`${prefix}${k}:second`))).resolves.toBe('v');
    }
  });

  it('loads the script again on a node that lost it (EVAL after NOSCRIPT)', async () => {
    const keys = keysOnEveryMaster(cluster, `noscript-${Date.now()}`);
    await Promise.all(keys.map((k) => scripts.setAll(1, k, 'before')));
    await Promise.all(cluster.nodes('master').map((n) => n.script('FLUSH')));
    await expect(Promise.all(keys.map((k) => scripts.setAll(1, k, 'after')))).resolves.toEqual([1, 1, 1]);
    await expect(cluster.get(keys[0])).resolves.toBe('after');
  });

  it('fails a call whose keys span slots alone, not the calls batched with it', async () => {
    const [a, b] = keysOnEveryMaster(cluster, `cross-${Date.now()}`);
    const crossing = scripts.setAll(2, a, b, 'v');
    const fine = scripts.setAll(1, a, 'v');
    await expect(crossing).rejects.toThrow(/CROSSSLOT|same slot/);
    await expect(fine).resolves.toBe(1);
  });

  it('runs in an explicit pipeline as before', async () => {
    const [a] = keysOnEveryMaster(cluster, `pipeline-${Date.now()}`);
    const pipeline = cluster.pipeline() as unknown as SetAll & { exec(): Promise<[Error | null, unknown][]> };
    void pipeline.setAll(1, a, 'p');
    await expect(pipeline.exec()).resolves.toEqual([[null, 1]]);
  });
});
