/**
 * The outbox under faults: Kafka stopped while holds expire (seats still freed on time, /health degraded
 * but ready, every record delivered after Kafka returns), the outbox stream lost, a relay that dies
 * mid-batch (the shard's next owner publishes its records first), a malformed record, a stale outbox.
 * A private broker is stopped and started; the shared one is never touched.
 */
import { SchedulerRegistry } from '@nestjs/schedule';
import Redis from 'ioredis';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { OutboxMeter } from '../../apps/seat-api/src/outbox/outbox-meter';
import { OutboxRelayService } from '../../apps/seat-api/src/outbox/outbox-relay.service';
import { eventually, TopicProbe } from '@test/support/kafka-probe';
import { PrivateKafka } from '@test/support/private-kafka';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

jest.setTimeout(240_000);

let kafka: PrivateKafka;
let api: Api;
let redis: Redis;
let eventId: string;
const topic = process.env.KAFKA_TOPIC_SEAT_EXPIRED!;

beforeAll(async () => {
  kafka = await PrivateKafka.start();
  api = await startApi({
    KAFKA_BROKERS: kafka.brokers,
    SWEEPER_ENABLED: 'true',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
    OUTBOX_STALE_AFTER_MS: '2000',
    HOLD_SHARD_LEASE_MS: '2000',
    // the outbox holding SeatExpired records only, as the counts below say; the seat.status records
    // under the same faults: seat-status.e2e-spec.ts
    SEAT_STATUS_STREAM_ENABLED: 'false',
  });
  redis = testRedisClient({ keyPrefix: process.env.REDIS_KEY_PREFIX });
  eventId = await createEvent(api, 2, 50);
});
afterAll(async () => {
  await api?.close();
  await redis?.quit();
  await kafka?.destroy();
});

/** A counter or gauge of this process's /metrics (0 when absent). */
async function metric(name: string): Promise<number> {
  const text = (await api.call('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

async function holdMany(seats: string[], ttlMs: number): Promise<string[]> {
  const store = api.app.get(HoldStore);
  const ids: string[] = [];
  for (const seat of seats) {
    const holdId = HoldIds.generate(eventId);
    const r = await store.createHold({
      eventId,
      holdId,
      userId: `u-${seat}`,
      seatIds: [seat],
      ttlMs,
      maxLifetimeMs: 60_000,
      maxSeatsPerUser: 10,
      fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
    });
    expect(r.ok).toBe(true);
    ids.push(holdId);
  }
  return ids;
}

it('Kafka stopped while holds expire: seats are freed on time and every event arrives once Kafka is back', async () => {
  await kafka.down();
  const store = api.app.get(HoldStore);
  let holdIds: string[];
  try {
    const seats = Array.from({ length: 30 }, (_, i) => `S-A-${i + 1}`);
    holdIds = await holdMany(seats, 500);
    const token = await api.token('viewer');
    // freed on time although Kafka is down
    await eventually(
      async () => (await api.call('GET', `/v1/events/${eventId}/seats`, { token })).body.counts.held === 0,
      5000,
      'seats freed',
    );
    await eventually(
      async () => (await redis.xlen(store.eventOutboxKey(eventId))) === 30,
      5000,
      '30 records waiting',
    );
    // readiness stays 200 (holds keep working, events wait): Kafka and the outbox are reported degraded,
    // with the waiting records (measured by the relay's next tick) and the relay's failure
    await eventually(
      async () => (await api.call('GET', '/health')).body.details?.outbox?.depth === 30,
      15_000,
      '/health reports 30 records waiting',
    );
    const health = await api.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.details.kafka.status).toBe('degraded');
    expect(health.body.details.redis.status).toBe('up');
    expect(health.body.details.postgres.status).toBe('up');
    await eventually(
      async () => (await api.call('GET', '/health')).body.details.outbox.status === 'degraded',
      15_000,
      'outbox reported as not draining',
    );
    expect((await api.call('GET', '/health')).body.details.outbox).toMatchObject({
      depth: 30,
      draining: false,
      relay: 'failing',
    });
  } finally {
    await kafka.up(); // also when an assertion failed: the next tests need the broker
  }
  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    await eventually(() => probe.values().length >= 30, 60_000, '30 events on the topic');
    const got = probe.values().map((v) => v.data.holdId as string);
    expect(new Set(got)).toEqual(new Set(holdIds));
    await eventually(
      async () => (await redis.xlen(store.eventOutboxKey(eventId))) === 0,
      10_000,
      'outbox drained',
    );
    await eventually(
      async () => (await api.call('GET', '/health')).body.status === 'ok',
      15_000,
      'health ok again',
    );
  } finally {
    await probe.stop();
  }
});

it('the outbox stream is lost (Redis restarted without persistence, flushed, evicted): the relay publishes what comes next without a restart', async () => {
  const store = api.app.get(HoldStore);
  const key = store.eventOutboxKey(eventId);
  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    const [before] = await holdMany(['S-A-40'], 200);
    await eventually(() => probe.values().some((v) => v.data.holdId === before), 20_000, 'published before');
    await eventually(async () => (await redis.xlen(key)) === 0, 10_000, 'outbox drained');
    const kafkaFailures = await metric('seat_outbox_publish_failures_total');
    // the stream vanishes; the sweeper's next XADD recreates it. The relay keeps no state in Redis (no
    // consumer group) that could be lost with it: XINFO takes the key as typed, so the prefix is added
    expect(await redis.call('XINFO', 'GROUPS', `${process.env.REDIS_KEY_PREFIX}${key}`)).toEqual([]);
    await redis.del(key);
    const [after] = await holdMany(['S-A-41'], 200);
    await eventually(
      () => probe.values().some((v) => v.data.holdId === after),
      20_000,
      'SeatExpired published after the stream was lost',
    );
    await eventually(async () => (await redis.xlen(key)) === 0, 10_000, 'outbox drained again');
    // a Redis-side problem is not a Kafka outage: the producer was not torn down
    expect(await metric('seat_outbox_publish_failures_total')).toBe(kafkaFailures);
    expect((await api.call('GET', '/health')).body.details.outbox).toMatchObject({
      status: 'up',
      depth: 0,
      draining: true,
    });
  } finally {
    await probe.stop();
  }
});

it("a relay that dies mid-batch leaves its records to the shard's next owner, which publishes them first, in order", async () => {
  const store = api.app.get(HoldStore);
  const key = store.eventOutboxKey(eventId);
  const relay = api.app.get(OutboxRelayService);
  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    // this instance's relay pauses; a former owner of the shard read a batch and died before settling it
    api.app.get(SchedulerRegistry).deleteInterval('outbox-relay');
    await relay.relayAll(); // the outbox is empty
    const read = await holdMany(['S-B-1', 'S-B-2', 'S-B-3'], 200);
    await eventually(async () => (await redis.xlen(key)) === 3, 5000, 'three records in the outbox');
    expect(await redis.xrange(key, '-', '+')).toHaveLength(3); // the former owner's read: it leaves no mark
    const later = await holdMany(['S-B-4', 'S-B-5'], 200);
    await eventually(async () => (await redis.xlen(key)) === 5, 5000, 'two newer records behind them');
    // the shard is this instance's now: the unsettled records come first, then the newer ones, each once
    expect(await relay.relayAll()).toBe(5);
    const all = [...read, ...later];
    await eventually(
      () => all.every((h) => probe.values().some((v) => v.data.holdId === h)),
      20_000,
      'every record published',
    );
    const order = probe
      .values()
      .filter((v) => all.includes(v.data.holdId as string))
      .map((v) => v.data.holdId as string);
    expect(order).toHaveLength(5);
    expect(new Set(order.slice(0, 3))).toEqual(new Set(read));
    expect(await redis.xlen(key)).toBe(0);
  } finally {
    await probe.stop();
  }
});

it('a malformed outbox record is moved aside and does not stall the records behind it', async () => {
  const store = api.app.get(HoldStore);
  const key = store.eventOutboxKey(eventId);
  const relay = api.app.get(OutboxRelayService);
  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    // as a script of another version might write it: no hold, no times
    await redis.xadd(key, '*', 'type', 'SeatExpired', 'eventId', eventId, 'seatId', 'S-B-9');
    const [holdId] = await holdMany(['S-B-10'], 200);
    await eventually(async () => (await redis.xlen(key)) === 2, 5000, 'both records in the outbox');
    await eventually(
      async () => {
        await relay.relayAll();
        return probe.values().some((v) => v.data.holdId === holdId);
      },
      20_000,
      'the good record published',
    );
    expect(await redis.xlen(key)).toBe(0);
    const aside = await redis.xrange(`${key}:malformed`, '-', '+');
    expect(aside).toHaveLength(1);
    expect(aside[0][1]).toEqual(expect.arrayContaining(['seatId', 'S-B-9']));
    expect(probe.values().some((v) => v.data.seatId === 'S-B-9')).toBe(false);
  } finally {
    await probe.stop();
  }
});

it('an outbox whose oldest record waits longer than OUTBOX_STALE_AFTER_MS is reported as not draining (still 200)', async () => {
  const store = api.app.get(HoldStore);
  const key = store.eventOutboxKey(eventId);
  const meter = api.app.get(OutboxMeter);
  const timers = api.app.get(SchedulerRegistry);
  if (timers.doesExist('interval', 'outbox-relay')) {
    timers.deleteInterval('outbox-relay');
  }
  // the outbox is measured (as every relay pass does) but nothing publishes: the record only ages
  const [holdId] = await holdMany(['S-B-30'], 200);
  await eventually(async () => (await redis.xlen(key)) === 1, 5000, 'the record in the outbox');
  await eventually(
    async () => {
      await meter.measure();
      return (await api.call('GET', '/health')).body.details.outbox.status === 'degraded';
    },
    15_000,
    'outbox reported as not draining',
  );
  const health = await api.call('GET', '/health');
  expect(health.status).toBe(200);
  expect(health.body.status).toBe('degraded');
  expect(health.body.details.outbox).toMatchObject({ depth: 1, draining: false, relay: 'running' });
  expect(health.body.details.outbox.oldestAgeSeconds).toBeGreaterThan(2); // OUTBOX_STALE_AFTER_MS
  expect(health.body.details.outbox.message).toMatch(/oldest record waiting/);

  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    await api.app.get(OutboxRelayService).tick();
    await eventually(() => probe.values().some((v) => v.data.holdId === holdId), 20_000, 'published');
    expect((await api.call('GET', '/health')).body.details.outbox).toMatchObject({ status: 'up', depth: 0 });
  } finally {
    await probe.stop();
  }
});
