/**
 * The outbox under faults: Kafka stopped while holds expire (seats still freed on time, every record
 * delivered after Kafka returns) and a relay that dies mid-batch (another claims its records).
 * A private broker is stopped and started; the shared one is never touched.
 */
import { SchedulerRegistry } from '@nestjs/schedule';
import Redis from 'ioredis';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/holds/store';
import { OutboxRelayService } from '../../apps/seat-api/src/expiry/outbox-relay.service';
import { eventually, TopicProbe } from '../support/kafka-probe';
import { PrivateKafka } from '../support/private-kafka';
import { Api, createEvent, startApi } from '../support/seat-api';

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
    OUTBOX_CLAIM_IDLE_MS: '1000',
  });
  redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  eventId = await createEvent(api, 2, 50);
});
afterAll(async () => {
  await api?.close();
  await redis?.quit();
  await kafka?.destroy();
});

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
      fencingToken: 1,
    });
    expect(r.ok).toBe(true);
    ids.push(holdId);
  }
  return ids;
}

it('Kafka stopped while holds expire: seats are freed on time and every event arrives once Kafka is back', async () => {
  await kafka.down();
  const seats = Array.from({ length: 30 }, (_, i) => `S-A-${i + 1}`);
  const holdIds = await holdMany(seats, 500);
  const token = await api.token('viewer');
  // freed on time although Kafka is down
  await eventually(
    async () => (await api.call('GET', `/v1/events/${eventId}/seats`, { token })).body.counts.held === 0,
    5000,
    'seats freed',
  );
  const store = api.app.get(HoldStore);
  await eventually(
    async () => (await redis.xlen(store.outboxKey(eventId))) === 30,
    5000,
    '30 records waiting',
  );
  // /health names Kafka as down and reports the waiting records (measured by the relay's next tick)
  await eventually(
    async () => {
      const health = await api.call('GET', '/health');
      return (
        health.status === 503 &&
        health.body.details.kafka.status === 'down' &&
        health.body.details.outbox.depth === 30
      );
    },
    15_000,
    'health shows Kafka down and 30 records waiting',
  );

  await kafka.up();
  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    await eventually(() => probe.values().length >= 30, 60_000, '30 events on the topic');
    const got = probe.values().map((v) => v.data.holdId as string);
    expect(new Set(got)).toEqual(new Set(holdIds));
    await eventually(
      async () => (await redis.xlen(store.outboxKey(eventId))) === 0,
      10_000,
      'outbox drained',
    );
  } finally {
    await probe.stop();
  }
});

it('a relay that dies mid-batch leaves its records to another, and nothing is lost', async () => {
  const store = api.app.get(HoldStore);
  const key = store.outboxKey(eventId);
  const relay = api.app.get(OutboxRelayService);
  const probe = await TopicProbe.start(topic, kafka.brokers);
  try {
    // this instance's relay pauses; a relay on another instance reads the batch and dies before publishing it
    api.app.get(SchedulerRegistry).deleteInterval('outbox-relay');
    await relay.relayAll(); // the group exists and the outbox is empty
    const holdIds = await holdMany(['S-B-1', 'S-B-2', 'S-B-3'], 200);
    await eventually(async () => (await redis.xlen(key)) === 3, 5000, 'all three records in the outbox');
    const taken = await redis.xreadgroup('GROUP', 'relay', 'dead-relay', 'COUNT', 100, 'STREAMS', key, '>');
    const takenCount = (taken as [string, unknown[]][] | null)?.[0]?.[1].length ?? 0;
    expect(takenCount).toBeGreaterThan(0);
    expect(await relay.relayAll()).toBe(0); // not idle long enough yet: still the dead relay's
    // after OUTBOX_CLAIM_IDLE_MS the live relay claims them and publishes
    await eventually(
      async () => {
        await relay.relayAll();
        return holdIds.every((h) => probe.values().some((v) => v.data.holdId === h));
      },
      20_000,
      'claimed records published',
    );
    await eventually(async () => (await redis.xlen(key)) === 0, 10_000, 'outbox drained');
    const pending = (await redis.xpending(key, 'relay')) as [number, ...unknown[]];
    expect(pending[0]).toBe(0);
  } finally {
    await probe.stop();
  }
});

it('a malformed outbox record is moved aside and does not stall the records behind it', async () => {
  const store = api.app.get(HoldStore);
  const key = store.outboxKey(eventId);
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
