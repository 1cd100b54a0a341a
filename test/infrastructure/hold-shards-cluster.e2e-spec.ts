/**
 * The sharded hold store on a real Redis Cluster (3 masters + 3 replicas, `scripts/infra.sh cluster up`):
 * events whose shards live on different masters are held, swept (the shard sweep builds each event's
 * keys in Lua from the shard's tag: same slot) and relayed to Kafka, one stream per shard, each read on
 * its own master. Without redis-server: skipped, loudly, in the plain run; a failure in the cluster run
 * (redis-cluster-suite).
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import Redis from 'ioredis';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { eventually, TopicProbe } from '@test/support/kafka-probe';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { redisClusterSuite } from '@test/support/redis-cluster-suite';

jest.setTimeout(120_000);

const root = path.resolve(__dirname, '..', '..');
const firstPort = Number(process.env.REDIS_CLUSTER_PORT ?? 7101);
const seeds = [0, 1, 2].map((i) => `127.0.0.1:${firstPort + i}`).join(',');
const suite = redisClusterSuite('hold-shards-cluster.e2e-spec');

suite('hold store shards on a Redis Cluster', () => {
  let api: Api;
  let node: Redis;
  const saved = { ...process.env };

  beforeAll(async () => {
    execFileSync('bash', [path.join(root, 'scripts', 'infra.sh'), 'cluster', 'up'], { stdio: 'inherit' });
    node = new Redis(firstPort, '127.0.0.1');
    api = await startApi({
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: seeds,
      SWEEPER_ENABLED: 'true',
      SWEEP_INTERVAL_MS: '100',
      OUTBOX_RELAY_INTERVAL_MS: '100',
      HOLD_MIN_TTL_SECONDS: '1',
    });
  });
  afterAll(async () => {
    await api?.close();
    node?.disconnect();
    process.env = saved;
  });

  /** The port of the master serving a slot, from CLUSTER SLOTS. */
  async function masterOf(slot: number): Promise<number> {
    const ranges = (await node.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to)!;
    return Number(range[2][1]);
  }

  it('holds, sweeps and relays events whose shards live on different masters', async () => {
    const store = api.app.get(HoldStore);
    const prefix = process.env.REDIS_KEY_PREFIX!;
    const masterOfEvent = async (eventId: string) => {
      const key = `${prefix}${store.layout.shardKeys(store.layout.shardOf(eventId)).due}`;
      // every key of the event, its seat locks and its fence counter carry this slot's tag
      for (const k of [
        ...Object.values(store.layout.eventKeys(eventId)),
        ...store.layout.seatLockKeys(eventId, ['S-A-1']),
      ]) {
        expect(await node.call('CLUSTER', 'KEYSLOT', `${prefix}${k}`)).toBe(
          await node.call('CLUSTER', 'KEYSLOT', key),
        );
      }
      return masterOf(Number(await node.call('CLUSTER', 'KEYSLOT', key)));
    };
    const first = await createEvent(api, 1, 4);
    let second = await createEvent(api, 1, 4);
    while ((await masterOfEvent(second)) === (await masterOfEvent(first))) {
      second = await createEvent(api, 1, 4);
    }
    // and a third event in the first one's shard: one sweep visits both (keys built in Lua)
    let third = await createEvent(api, 1, 4);
    for (let i = 0; i < 500 && store.layout.shardOf(third) !== store.layout.shardOf(first); i++) {
      third = await createEvent(api, 1, 4);
    }

    const probe = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_EXPIRED!);
    try {
      const alice = await api.token('alice');
      const events = [first, second, third];
      const holds: string[] = [];
      for (const ev of events) {
        const r = await api.call('POST', `/v1/events/${ev}/holds`, {
          token: alice,
          body: { seatIds: ['S-A-1', 'S-A-2'], ttlSeconds: 1 },
        });
        expect(r.status).toBe(201);
        holds.push(r.body.holdId as string);
      }
      await eventually(
        () => holds.every((h) => probe.values().filter((v) => v.data.holdId === h).length === 2),
        30_000,
        'SeatExpired for both seats of every hold',
      );
      for (const ev of events) {
        const map = await api.call('GET', `/v1/events/${ev}/seats`, { token: alice });
        expect(map.body.counts).toMatchObject({ held: 0, available: 4 });
      }
      const health = await api.call('GET', '/health');
      expect(health.body.details.outbox).toMatchObject({ depth: 0 });
    } finally {
      await probe.stop();
    }
  });
});
