/**
 * Shards split across instances: several seat-api apps in this process, on one Redis prefix,
 * database schema and topic. Each hold-store shard has one owner at a time (a watchdog lease); the owners
 * take a fair share; a dead instance's shards go to the others once its leases run out; and with two and
 * three relaying instances each event's SeatExpired messages reach Kafka in expiry order.
 */
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';
import { createSeatApi } from '../../apps/seat-api/src/bootstrap/create-app';
import { SHARD_SLACK, ShardOwnership } from '../../apps/seat-api/src/shards/shard-ownership.service';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { eventually, TopicProbe } from '@test/support/kafka-probe';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(180_000);

const LEASE_MS = 1500;
const SHARDS = 64;
let api: Api;
const others: NestFastifyApplication[] = [];

beforeAll(async () => {
  api = await startApi({
    SWEEPER_ENABLED: 'true',
    HOLD_SHARD_LEASE_MS: String(LEASE_MS),
    SWEEP_INTERVAL_MS: '100',
    SWEEP_BATCH_SIZE: '25', // several sweeps and relay batches per event: room for disorder to show
    OUTBOX_RELAY_INTERVAL_MS: '50',
    OUTBOX_RELAY_BATCH_SIZE: '7',
  });
});
afterAll(async () => {
  await Promise.allSettled(others.map((a) => a.close()));
  await api?.close();
});

const owned = (apps: NestFastifyApplication[]) => apps.map((a) => a.get(ShardOwnership).ownedShards());

/** Every shard owned by exactly one of `apps`, and each holds at most `max`. */
function fairlySplit(apps: NestFastifyApplication[], max: number): boolean {
  const all = owned(apps);
  const flat = all.flat();
  return flat.length === SHARDS && new Set(flat).size === SHARDS && all.every((o) => o.length <= max);
}

async function startOthers(n: number): Promise<NestFastifyApplication[]> {
  while (others.length < n) {
    const app = await createSeatApi(); // same environment as `api`: sweeper on, same prefix and schema
    await app.init(); // starts its sweeper, relay and shard ownership
    others.push(app);
  }
  return [api.app, ...others.slice(0, n)];
}

/** Holds of one seat each on `eventId`, expiring one after another (a few ms apart), from `soonMs` on. */
async function holdsExpiringInOrder(eventId: string, seats: string[], soonMs: number): Promise<void> {
  const store = api.app.get(HoldStore);
  for (const [i, seat] of seats.entries()) {
    const r = await store.createHold({
      eventId,
      holdId: HoldIds.generate(eventId),
      userId: `u-${i}`,
      seatIds: [seat],
      ttlMs: soonMs + i * 3,
      maxLifetimeMs: 60_000,
      maxSeatsPerUser: 10,
      fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
    });
    expect(r.ok).toBe(true);
  }
}

it.each([2, 3])(
  'with %i relaying instances, each event’s SeatExpired messages reach Kafka in expiry order',
  async (instances) => {
    const apps = await startOthers(instances - 1);
    await eventually(
      () => fairlySplit(apps, Math.ceil(SHARDS / instances) + SHARD_SLACK),
      30_000,
      'shards split',
    );
    const topic = process.env.KAFKA_TOPIC_SEAT_EXPIRED!;
    const probe = await TopicProbe.start(topic);
    try {
      // six events whose shards are owned by at least two instances (six random ones all land on one
      // instance's shards about 3 % of the time with two instances: the test would then prove little)
      const ownerOf = (ev: string) => {
        const shard = api.app.get(HoldStore).layout.shardOf(ev);
        return owned(apps).findIndex((o) => o.includes(shard));
      };
      const events: string[] = [];
      for (let tries = 0; events.length < 6 && tries < 40; tries++) {
        const ev = await createEvent(api, 2, 30);
        const lastSlot = events.length === 5;
        if (!lastSlot || new Set([...events, ev].map(ownerOf)).size > 1) {
          events.push(ev);
        }
      }
      expect(events).toHaveLength(6);
      const seats = Array.from({ length: 60 }, (_, i) => `S-${i < 30 ? 'A' : 'B'}-${(i % 30) + 1}`);
      await Promise.all(events.map((ev) => holdsExpiringInOrder(ev, seats, 1500)));
      const mine = (v: { data: { eventId: string } }) => events.includes(v.data.eventId);
      await eventually(
        () => probe.values().filter(mine).length >= events.length * seats.length,
        60_000,
        'every SeatExpired on the topic',
      );
      // the shards of these events are owned by different instances (else this proves little)
      const owners = new Set(
        events.map((ev) => {
          const shard = api.app.get(HoldStore).layout.shardOf(ev);
          return owned(apps).findIndex((o) => o.includes(shard));
        }),
      );
      expect(owners.size).toBeGreaterThan(1);
      for (const ev of events) {
        // one partition per event (key = event id): the probe saw its messages in offset order
        const onTopic = probe.values().filter((v) => v.data.eventId === ev);
        expect(new Set(onTopic.map((v) => v.data.seatId)).size).toBe(seats.length);
        const expireAts = onTopic.map((v) => Date.parse(v.data.expireAt));
        expect(expireAts).toEqual([...expireAts].sort((a, b) => a - b));
      }
    } finally {
      await probe.stop();
    }
  },
);

it('3 instances share 64 shards fairly; a dead one’s shards are taken over once its leases run out', async () => {
  const apps = await startOthers(2);
  const fair = Math.ceil(SHARDS / 3) + SHARD_SLACK;
  await eventually(() => fairlySplit(apps, fair), 30_000, 'a fair split');
  expect(Math.max(...owned(apps).map((o) => o.length))).toBeLessThanOrEqual(fair); // a third plus a few

  // the third instance "dies": its Redis connection is gone, so it renews nothing (and hears nothing)
  const dead = apps[2];
  const itsShards = dead.get(ShardOwnership).ownedShards();
  expect(itsShards.length).toBeGreaterThan(0);
  dead.get<Redis>(REDIS_CLIENT).disconnect();
  const survivors = apps.slice(0, 2);
  await eventually(
    () => fairlySplit(survivors, Math.ceil(SHARDS / 2) + SHARD_SLACK),
    10 * LEASE_MS,
    'the survivors own every shard',
  );
  // and the dead one stopped working on them: its leases were lost, their signals aborted
  await eventually(
    () => dead.get(ShardOwnership).ownedShards().length === 0,
    10 * LEASE_MS,
    'dead one let go',
  );
  // its shards are swept again: a hold due on one of them expires
  const store = api.app.get(HoldStore);
  let eventId = await createEvent(api, 1, 2);
  while (!itsShards.includes(store.layout.shardOf(eventId))) {
    eventId = await createEvent(api, 1, 2);
  }
  const holdId = HoldIds.generate(eventId);
  await store.createHold({
    eventId,
    holdId,
    userId: 'u',
    seatIds: ['S-A-1'],
    ttlMs: 200,
    maxLifetimeMs: 60_000,
    maxSeatsPerUser: 10,
    fencingToken: 0,
  });
  const redis = api.app.get<Redis>(REDIS_CLIENT);
  await eventually(
    async () => (await redis.zcard(store.layout.eventKeys(eventId).due)) === 0,
    10_000,
    'the hold swept by a survivor',
  );
  others.splice(others.indexOf(dead), 1);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    dead.close().catch(() => undefined),
    new Promise((r) => (timer = setTimeout(r, 15_000))),
  ]);
  clearTimeout(timer);
});
