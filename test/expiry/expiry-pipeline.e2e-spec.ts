/**
 * Hold expiry end to end on real Redis, PostgreSQL and Kafka: the sweeper frees the seat, the relay
 * publishes SeatExpired, the expiry consumer records it; plus races with extend/release and 2 instances.
 */
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { startExpiryConsumer } from '../../apps/expiry-consumer/src/create-consumer';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { createSeatApi } from '../../apps/seat-api/src/bootstrap/create-app';
import { eventually, TopicProbe } from '@test/support/kafka-probe';
import { Api, createEvent, sleep, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

jest.setTimeout(120_000);

let api: Api;
let consumer: NestFastifyApplication;
let probe: TopicProbe;
let pg: Client;
let eventId: string;
const topic = process.env.KAFKA_TOPIC_SEAT_EXPIRED!;

const historyCount = async (where = 'true', params: unknown[] = []) =>
  Number(
    (
      await pg.query(
        `SELECT count(*)::int AS n FROM ${process.env.DATABASE_SCHEMA}.hold_expiries WHERE ${where}`,
        params,
      )
    ).rows[0].n,
  );

/** Waits until the expiry consumer has committed every message now on the topic (it handled them all). */
async function consumerCaughtUp(): Promise<void> {
  const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const groupId = process.env.KAFKA_CONSUMER_GROUP!;
    const high = await admin.fetchTopicOffsets(topic);
    await eventually(
      async () => {
        const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return high.every(
          (h) =>
            h.high === h.low ||
            BigInt(committed.partitions.find((p) => p.partition === h.partition)?.offset ?? '-1') >=
              BigInt(h.high),
        );
      },
      30_000,
      'expiry consumer caught up',
    );
  } finally {
    await admin.disconnect();
  }
}

beforeAll(async () => {
  api = await startApi({
    SWEEPER_ENABLED: 'true',
    HOLD_MIN_TTL_SECONDS: '1',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
  });
  consumer = await startExpiryConsumer(0);
  probe = await TopicProbe.start(topic);
  pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  eventId = await createEvent(api, 2, 50);
});

afterAll(async () => {
  await probe?.stop();
  await consumer?.close();
  await api?.close();
  await pg?.end();
});

it('a 1 s hold expires: the seat is free, SeatExpired is on Kafka and in the history, within a few sweeps', async () => {
  const alice = await api.token('alice');
  const admin = await api.token('root', ['admin']);
  const h = (
    await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-1', 'S-A-2'], ttlSeconds: 1 },
    })
  ).body;
  expect(h.status).toBe('ACTIVE');
  await eventually(
    () => probe.values().filter((v) => v.data.holdId === h.holdId).length === 2,
    10_000,
    'two SeatExpired on the topic',
  );
  const events = probe.values().filter((v) => v.data.holdId === h.holdId);
  const e = events.find((v) => v.data.seatId === 'S-A-1')!;
  expect(e).toMatchObject({
    specversion: '1.0',
    type: 'SeatExpired',
    source: `/seat-hold/events/${eventId}`,
    datacontenttype: 'application/json',
    data: {
      eventId,
      seatId: 'S-A-1',
      holdId: h.holdId,
      userId: 'alice',
      expireAt: h.expiresAt,
      fencingToken: h.fencingToken,
    },
  });
  const lagMs = Date.parse(e.time) - Date.parse(h.expiresAt);
  expect(lagMs).toBeGreaterThanOrEqual(0);
  const msg = probe.messages.find((m) => JSON.parse(m.value!.toString()).id === e.id)!;
  expect(msg.key!.toString()).toBe(eventId);
  expect(msg.headers!.ce_type!.toString()).toBe('SeatExpired');
  // stable across re-publishing and re-expiry: the hold (which carries its event) and the seat
  expect(e.id).toBe(`${h.holdId}:S-A-1`);
  await eventually(
    async () => (await historyCount('hold_id = $1', [h.holdId])) === 2,
    10_000,
    'two history rows',
  );
  const read = await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice });
  expect(read.body.status).toBe('EXPIRED');
  const list = await api.call('GET', `/v1/events/${eventId}/expirations`, { token: admin });
  expect(list.body.items.map((i: { seatId: string }) => i.seatId).sort()).toEqual(['S-A-1', 'S-A-2']);
  const page = await api.call('GET', `/v1/events/${eventId}/expirations?limit=1&offset=1`, { token: admin });
  expect(page.body).toMatchObject({ total: 2, items: [{ holdId: h.holdId, userId: 'alice' }] });
  expect((await api.call('GET', `/v1/events/${eventId}/expirations`, { token: alice })).status).toBe(403);
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice });
  expect(map.body.counts.held).toBe(0);
});

it('a hold expired again after Redis lost its last writes keeps its CloudEvent id: one history row', async () => {
  const alice = await api.token('alice');
  const ev = await createEvent(api, 1, 5);
  const h = (
    await api.call('POST', `/v1/events/${ev}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-3'], ttlSeconds: 1 },
    })
  ).body;
  expect(h.status).toBe('ACTIVE');
  // what Redis holds for this event while the hold is active (the outbox aside: it has its own test)
  const raw = testRedisClient();
  try {
    // the event's keys and its shard's indexes (the shard's outbox aside)
    const store = api.app.get(HoldStore);
    const shardKeys = store.layout.shardKeys(store.layout.shardOf(ev));
    const prefix = process.env.REDIS_KEY_PREFIX ?? '';
    const [level, split] = await raw.hmget(`${prefix}${store.layout.eventKeys(ev).meta}`, 'hl', 'hp');
    const buckets = 2 ** Number(level ?? 0) + Number(split ?? 0);
    const names = [
      ...Object.values(store.layout.eventKeys(ev)),
      ...store.layout.holdBucketKeys(ev, buckets),
      shardKeys.due,
      shardKeys.gc,
    ].map((k) => `${prefix}${k}`);
    const keys: string[] = [];
    for (const k of names) {
      if ((await raw.exists(k)) === 1) {
        keys.push(k);
      }
    }
    const snapshot = await Promise.all(keys.map(async (k) => [k, await raw.dumpBuffer(k)] as const));
    const ofHold = () => probe.values().filter((v) => v.data.holdId === h.holdId);
    await eventually(() => ofHold().length === 1, 10_000, 'first SeatExpired');
    await eventually(
      async () => (await historyCount('hold_id = $1', [h.holdId])) === 1,
      10_000,
      'history row',
    );

    // Redis loses every write since the snapshot (restart on an AOF missing its last second, failover to
    // a lagging replica): the hold is ACTIVE and due again, and the sweeper expires it a second time
    for (const k of names) {
      if (!keys.includes(k)) {
        await raw.del(k);
      }
    }
    for (const [k, dump] of snapshot) {
      await raw.restore(k, 0, dump, 'REPLACE');
    }
    await eventually(() => ofHold().length === 2, 10_000, 'second SeatExpired for the same hold and seat');
    await consumerCaughtUp();
    expect(await historyCount('hold_id = $1', [h.holdId])).toBe(1);
    const [first, second] = ofHold();
    expect(second.id).toBe(first.id); // a hold expires once: the id names the hold and the seat
    expect(first.id).toBe(`${h.holdId}:S-A-3`);
  } finally {
    await raw.quit();
  }
});

it('extend and release racing the sweeper never produce a wrong event', async () => {
  const bob = await api.token('bob');
  const extended: string[] = [];
  const released: string[] = [];
  for (let i = 0; i < 10; i++) {
    const seat = `S-B-${i + 1}`;
    const h = (
      await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: bob,
        body: { seatIds: [seat], ttlSeconds: 1 },
      })
    ).body;
    await sleep(850 + (i % 3) * 60);
    if (i % 2 === 0) {
      const r = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
        token: bob,
        body: { ttlSeconds: 60 },
      });
      if (r.status === 200) {
        extended.push(h.holdId);
      }
    } else {
      await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: bob });
      const after = await api.call('GET', `/v1/holds/${h.holdId}`, { token: bob });
      if (after.body.status === 'RELEASED') {
        released.push(h.holdId);
      }
    }
  }
  await sleep(1500); // a few sweeps and relays
  const expiredHolds = new Set(probe.values().map((v) => v.data.holdId as string));
  for (const id of [...extended, ...released]) {
    expect(expiredHolds.has(id)).toBe(false);
  }
  expect(extended.length + released.length).toBeGreaterThan(0);
  // the extended holds would expire a minute from now, in the middle of later tests that count messages
  for (const id of extended) {
    expect((await api.call('DELETE', `/v1/holds/${id}`, { token: bob })).status).toBe(204);
  }
});

it('two instances sweeping 2,000 simultaneous expiries, with and without the lock, record exactly one event and one history row per seat', async () => {
  const second = await createSeatApi(); // same Redis prefix, same database schema, sweeper on
  await second.listen(0, '127.0.0.1');
  try {
    const store = api.app.get(HoldStore);
    const ev = await createEvent(api, 20, 100);
    const due = Date.now() + 6000; // room for 2,000 holds on a busy machine before any is due
    const seats = Array.from(
      { length: 2000 },
      (_, i) => `S-${String.fromCharCode(65 + Math.floor(i / 100))}-${(i % 100) + 1}`,
    );
    for (let i = 0; i < seats.length; i += 200) {
      await Promise.all(
        seats.slice(i, i + 200).map((seat, k) =>
          store.createHold({
            eventId: ev,
            holdId: HoldIds.generate(ev),
            userId: `u${i + k}`,
            seatIds: [seat],
            ttlMs: due - Date.now(),
            maxLifetimeMs: 60_000,
            maxSeatsPerUser: 10,
            fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
          }),
        ),
      );
    }
    expect(Date.now()).toBeLessThan(due); // all 2,000 were held before any was due
    // Beside both instances' locked sweepers, each instance's store also sweeps with NO lock, in a tight
    // loop with small batches, through the expiry moment: only the script's re-check prevents double frees.
    const lockless = (s: HoldStore) => async () => {
      let freed = 0;
      while (Date.now() < due + 1500) {
        const r = await s.sweepShard(s.layout.shardOf(ev), 25);
        freed += r.expiredSeats;
        if (!r.more) {
          await sleep(2);
        }
      }
      return freed;
    };
    const [freedA, freedB] = await Promise.all([lockless(store)(), lockless(second.get(HoldStore))()]);
    expect(freedA + freedB).toBeLessThanOrEqual(2000);
    expect(freedA).toBeGreaterThan(0);
    expect(freedB).toBeGreaterThan(0);
    await eventually(
      async () => (await historyCount('event_id = $1', [ev])) >= 2000,
      60_000,
      '2000 history rows',
    );
    await eventually(
      () => probe.values().filter((v) => v.data.eventId === ev).length >= 2000,
      10_000,
      '2000 messages seen by the probe',
    );
    // one more relay period for any duplicate to surface before we count
    await sleep(1000);
    expect(await historyCount('event_id = $1', [ev])).toBe(2000);
    const onTopic = probe.values().filter((v) => v.data.eventId === ev);
    expect(new Set(onTopic.map((v) => v.data.seatId)).size).toBe(2000);
    expect(onTopic.length).toBe(2000); // one outbox record per seat: each record is one message
    const map = await api.call('GET', `/v1/events/${ev}/seats`, { token: await api.token('viewer') });
    expect(map.body.counts.held).toBe(0);
  } finally {
    await second.close();
  }
});

it('redelivered messages change nothing; a poison message goes to the dead-letter topic, another event type of the topic is skipped, and the next good one is processed', async () => {
  const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const dlq = await TopicProbe.start(process.env.KAFKA_TOPIC_DEAD_LETTER!);
  const good = (id: string) => ({
    specversion: '1.0',
    id,
    source: `/seat-hold/events/${eventId}`,
    type: 'SeatExpired',
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    subject: 'S-A-50',
    data: {
      eventId,
      seatId: 'S-A-50',
      holdId: `${id}-hold`,
      userId: 'zed',
      expireAt: new Date().toISOString(),
      fencingToken: 7,
    },
  });
  await producer.send({
    topic,
    messages: [
      { key: eventId, value: JSON.stringify(good('dup-1')) },
      { key: eventId, value: JSON.stringify(good('dup-1')) },
      { key: eventId, value: '{not json' },
      // a type this consumer does not know (one added to the topic later): not poison
      { key: eventId, value: JSON.stringify({ ...good('x'), type: 'SomethingElse' }) },
      {
        key: eventId,
        value: JSON.stringify({ ...good('bad'), data: { ...good('bad').data, expireAt: 'soon' } }),
      },
      { key: eventId, value: JSON.stringify(good('after-poison')) },
    ],
  });
  await eventually(
    async () => (await historyCount(`event_message_id = 'after-poison'`)) === 1,
    15_000,
    'good message after poison',
  );
  expect(await historyCount(`event_message_id = 'dup-1'`)).toBe(1);
  await eventually(() => dlq.messages.length === 2, 10_000, 'two dead letters');
  expect(dlq.messages.map((m) => m.headers!['dlq-reason']!.toString())).toEqual([
    expect.stringMatching(/not JSON/),
    expect.stringMatching(/does not match the SeatExpired schema/),
  ]);
  expect(await historyCount(`event_message_id = 'x'`)).toBe(0);
  await dlq.stop();
  await producer.disconnect();
});

it('a second consumer instance joins the same group: each reports ready with its own member id', async () => {
  const health = async (app: NestFastifyApplication) => {
    const res = await fetch(`${await app.getUrl()}/health`);
    return { status: res.status, body: (await res.json()) as any };
  };
  const other = await startExpiryConsumer(0); // resolves after its own GROUP_JOIN
  try {
    // the first instance rebalances (not ready) and rejoins (ready) beside the second
    await eventually(
      async () => (await health(consumer)).status === 200 && (await health(other)).status === 200,
      30_000,
      'both consumers ready',
    );
    const [a, b] = [await health(consumer), await health(other)];
    expect(a.body.details.consumerGroup.memberId).toBeTruthy();
    expect(b.body.details.consumerGroup.memberId).toBeTruthy();
    expect(a.body.details.consumerGroup.memberId).not.toBe(b.body.details.consumerGroup.memberId);
  } finally {
    await other.close();
  }
});

it('a consumer restarted from the beginning of the topic (full redelivery) adds no row', async () => {
  const rowsBefore = await historyCount();
  expect(rowsBefore).toBeGreaterThan(2000);
  await consumer.close(); // leaves the group cleanly: the group is empty, so its offsets can be reset
  const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const groupId = process.env.KAFKA_CONSUMER_GROUP!;
    await admin.resetOffsets({ groupId, topic, earliest: true });
    consumer = await startExpiryConsumer(0);
    const high = await admin.fetchTopicOffsets(topic);
    const caughtUp = async () => {
      const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
      // an empty partition has nothing to re-read (its committed offset may stay a sentinel)
      return high.every(
        (h) =>
          h.high === h.low ||
          // >=, not ===: a message published after we looked would move the commit past `high`
          BigInt(committed.partitions.find((p) => p.partition === h.partition)?.offset ?? '-1') >=
            BigInt(h.high),
      );
    };
    // ~14 s on an idle 2-core machine; generous because a busy machine makes the group rebalance
    await eventually(caughtUp, 150_000, 'consumer re-read the whole topic');
    expect(await historyCount()).toBe(rowsBefore);
  } finally {
    await admin.disconnect();
  }
}, 240_000);
