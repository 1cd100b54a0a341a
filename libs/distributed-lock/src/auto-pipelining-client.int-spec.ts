/**
 * The lock on a client that batches the commands of one event-loop turn (auto-pipelining), as the seat
 * API's is: locks taken, renewed and released in the same turn for hash tags on different Redis Cluster
 * masters (TEST_REDIS=cluster) each go with their own master's batch. On one Redis, every tag shares the
 * one batch. Locks of several keys: their scripts' key count differs from call to call.
 */
import { randomUUID } from 'node:crypto';
import Redis, { Cluster } from 'ioredis';
import { Registry } from 'prom-client';
import { connectRedis, createRedisClient, keySlot, RedisClient } from '@app/redis';
import { DistributedLockService } from './distributed-lock.service';
import { eventually } from '@test/support/eventually';
import { lockService } from '@test/support/distributed-lock';

let client: RedisClient;
let locks: DistributedLockService;

beforeAll(async () => {
  const nodes = process.env.REDIS_CLUSTER_NODES;
  client = createRedisClient({
    ...(nodes
      ? {
          clusterNodes: nodes
            .split(',')
            .map((n) => ({ host: n.split(':')[0], port: Number(n.split(':')[1]) })),
        }
      : { url: process.env.REDIS_URL! }),
    keyPrefix: process.env.REDIS_KEY_PREFIX,
    connectTimeoutMs: 2000,
    commandTimeoutMs: 2000,
    autoPipelining: true,
    name: 'lock-auto-pipelined-spec',
  });
  await connectRedis(client);
  locks = lockService(client as Redis, { watchdogLeaseMs: 300 });
});
afterAll(async () => {
  await locks?.onApplicationShutdown();
  await client?.quit().catch(() => client.disconnect());
});

/** Three hash tags, on three different masters when `client` is a Cluster. */
function tagsOnDifferentMasters(): string[] {
  const run = randomUUID();
  if (!client.isCluster) {
    return [0, 1, 2].map((i) => `${run}-${i}`);
  }
  const cluster = client as Cluster;
  const byMaster = new Map<string, string>();
  for (let i = 0; byMaster.size < cluster.nodes('master').length && i < 10_000; i++) {
    const tag = `${run}-${i}`;
    const master = cluster.slots[keySlot(`{${tag}}`)][0];
    byMaster.set(master, byMaster.get(master) ?? tag);
  }
  expect(byMaster.size).toBe(3);
  return [...byMaster.values()];
}

it('multi-key locks of tags on different masters, taken and released in one turn, all succeed', async () => {
  const tags = tagsOnDifferentMasters();
  const taken = await Promise.all(
    tags.map((tag) => locks.acquire([`seat:{${tag}}:A1`, `seat:{${tag}}:A2`], { leaseMs: 5000 })),
  );
  expect(taken.map((l) => l.fencingToken > 0)).toEqual([true, true, true]);
  // a second owner, in one turn too, finds each of them held
  const refused = await Promise.all(
    tags.map((tag) => locks.tryAcquire([`seat:{${tag}}:A2`, `seat:{${tag}}:A3`], { leaseMs: 5000 })),
  );
  expect(refused).toEqual([null, null, null]);
  await expect(Promise.all(taken.map((l) => l.extend(5000)))).resolves.toEqual([true, true, true]);
  await expect(Promise.all(taken.map((l) => l.release()))).resolves.toEqual([
    'RELEASED',
    'RELEASED',
    'RELEASED',
  ]);
  expect(locks.heldCount).toBe(0);
});

it('the watchdog renews held locks of tags on different masters in one turn, none reported lost', async () => {
  const lost: string[] = [];
  const registry = new Registry();
  const watched = lockService(client as Redis, {
    watchdogLeaseMs: 300,
    registry,
    onLockLost: ({ keys }) => lost.push(...keys),
  });
  const renewals = async (result: string) =>
    (await registry.getSingleMetric('distributed_lock_renewals_total')!.get()).values.find(
      (v) => v.labels.result === result,
    )?.value ?? 0;
  try {
    const tags = tagsOnDifferentMasters();
    const held = await Promise.all(
      tags.map((tag) => watched.acquire([`seat:{${tag}}:W1`, `seat:{${tag}}:W2`])),
    );
    // three watchdog rounds, each one renewal script per tag sent in one turn
    await eventually(async () => (await renewals('renewed')) + (await renewals('error')) >= 9, 10_000);
    expect(await renewals('error')).toBe(0);
    expect(lost).toEqual([]);
    await expect(Promise.all(held.map((l) => l.release()))).resolves.toEqual([
      'RELEASED',
      'RELEASED',
      'RELEASED',
    ]);
  } finally {
    await watched.onApplicationShutdown();
  }
});
