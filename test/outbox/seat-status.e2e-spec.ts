/**
 * The seat.status stream against the real services (PostgreSQL, Redis, a private Kafka broker that is
 * stopped and started): every change of a seat's state (a hold created by seat ids or best available,
 * extended, released by its customer or by staff, confirmed, expired, a booking cancelled, seats blocked
 * and unblocked by staff, and each staff action as its audit records it) reaches
 * seat.status in the order it was made, keyed by the show, with ids that name the change, each message
 * valid against the AsyncAPI document the API serves at /docs/asyncapi; seat.expired keeps carrying
 * exactly its SeatExpired messages and nothing else; Kafka down meanwhile loses nothing; a priced hold's
 * HoldConfirmed carries what its booking was sold for.
 */
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaMessage } from 'kafkajs';
import { parse } from 'yaml';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { eventually, TopicProbe, topicMessageCount } from '@test/support/kafka-probe';
import { PrivateKafka } from '@test/support/private-kafka';
import { createPricedShow, createPromo, setPrices } from '@test/support/pricing-stage';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

jest.setTimeout(240_000);

let kafka: PrivateKafka;
let api: Api;
let status: TopicProbe;
let expired: TopicProbe;
let eventId: string;
let alice: string;
let bob: string;
let admin: string;
const validators = new Map<string, ValidateFunction>();

beforeAll(async () => {
  kafka = await PrivateKafka.start();
  api = await startApi({
    KAFKA_BROKERS: kafka.brokers,
    SWEEPER_ENABLED: 'true',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
    RATE_LIMIT_ENABLED: 'false',
  });
  status = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_STATUS!, kafka.brokers);
  expired = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_EXPIRED!, kafka.brokers);
  eventId = await createEvent(api, 3, 20);
  alice = await api.token('alice');
  bob = await api.token('bob');
  admin = await api.token('admin-1', ['admin']);
  // the message schemas of the document the API serves, which is the repository's docs/asyncapi.yaml
  const served = await api.call('GET', '/docs/asyncapi');
  expect(served.status).toBe(200);
  expect(served.body).toEqual(parse(readFileSync(join(__dirname, '../../docs/asyncapi.yaml'), 'utf8')));
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const doc = served.body;
  for (const [type, message] of Object.entries<any>(doc.components.messages)) {
    const schema = doc.components.schemas[message.payload.$ref.split('/').pop()];
    validators.set(type, ajv.compile(schema));
  }
});
afterAll(async () => {
  await status?.stop();
  await expired?.stop();
  await api?.close();
  await kafka?.destroy();
});

/** Each message of `probe` for this test's show, checked against the served document and its binding. */
function published(probe: TopicProbe): any[] {
  return probe.messages
    .filter((m) => m.key?.toString() === eventId)
    .map((m: KafkaMessage) => {
      const ce = JSON.parse(m.value!.toString());
      const validate = validators.get(ce.type);
      expect([ce.type, validate?.(ce) ?? 'no schema', validate?.errors ?? null]).toEqual([
        ce.type,
        true,
        null,
      ]);
      expect(m.headers?.ce_type?.toString()).toBe(ce.type);
      expect(m.headers?.ce_id?.toString()).toBe(ce.id);
      return ce;
    });
}

/** The changes of this show on seat.status, in order, each once (a redelivery repeats an id). */
function changes(): { type: string; id: string; data: any }[] {
  const seen = new Set<string>();
  return published(status)
    .filter((ce) => !seen.has(ce.id) && seen.add(ce.id))
    .map((ce) => ({ type: ce.type, id: ce.id, data: ce.data }));
}

const hold = async (token: string, body: unknown) => {
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, { token, body });
  expect(r.status).toBe(201);
  return r.body.holdId as string;
};

it('every change of a seat reaches seat.status in the order made, valid against /docs/asyncapi; seat.expired keeps its messages', async () => {
  const store = api.app.get(HoldStore);
  const h1 = await hold(alice, { seatIds: ['S-A-1', 'S-A-2'] });
  expect(
    (await api.call('POST', `/v1/holds/${h1}/extend`, { token: alice, body: { ttlSeconds: 600 } })).status,
  ).toBe(200);
  expect((await api.call('DELETE', `/v1/holds/${h1}`, { token: alice })).status).toBe(204);
  const h2 = await hold(alice, { seatIds: ['S-A-3'] });
  const confirmed = await api.call('POST', `/v1/holds/${h2}/confirm`, {
    token: alice,
    body: { orderId: 'o-1' },
  });
  expect(confirmed.status).toBe(201);
  const h3 = await hold(bob, { seatIds: ['S-A-4'] });
  const forced = await api.call('POST', `/v1/holds/${h3}/force-release`, {
    token: admin,
    body: { reason: 'duplicate order' },
  });
  expect(forced.status).toBe(200);
  // a hold shorter than the API allows, straight in the store: it expires within a few sweeps
  const h5 = HoldIds.generate(eventId);
  const short = await store.createHold({
    eventId,
    holdId: h5,
    userId: 'carol',
    seatIds: ['S-C-1', 'S-C-2'],
    ttlMs: 300,
    maxLifetimeMs: 60_000,
    maxSeatsPerUser: 10,
    fencingToken: 0,
  });
  expect(short.ok).toBe(true);
  const h4 = await hold(bob, { bestAvailable: { quantity: 2 } });
  await eventually(
    () => changes().filter((c) => c.type === 'SeatExpired').length === 2,
    30_000,
    'the short hold expired on seat.status',
  );
  const bookingId = confirmed.body.bookingId as string;
  const cancelled = await api.call('POST', `/v1/events/${eventId}/bookings/${bookingId}/cancel`, {
    token: admin,
    body: { reason: 'refunded' },
  });
  expect(cancelled.status).toBe(200);
  for (const change of ['block', 'unblock']) {
    const r = await api.call('POST', `/v1/events/${eventId}/seats/${change}`, {
      token: admin,
      body: { seatIds: ['S-C-9'], reason: 'camera position' },
    });
    expect(r.status).toBe(200);
  }
  await eventually(() => changes().length === 18, 30_000, '18 changes on seat.status');

  expect(changes().map((c) => [c.type, c.id])).toEqual([
    ['HoldCreated', `${h1}:created`],
    ['HoldExtended', `${h1}:extended:1`],
    ['HoldReleased', `${h1}:released`],
    ['HoldCreated', `${h2}:created`],
    ['HoldConfirmed', `${h2}:confirmed`],
    ['HoldCreated', `${h3}:created`],
    ['HoldReleased', `${h3}:released`],
    ['StaffActionRecorded', expect.stringMatching(/:staff$/)],
    ['HoldCreated', `${h5}:created`],
    ['HoldCreated', `${h4}:created`],
    ['SeatExpired', `${h5}:S-C-1`],
    ['SeatExpired', `${h5}:S-C-2`],
    ['BookingCancelled', bookingId],
    ['StaffActionRecorded', expect.stringMatching(/:staff$/)],
    ['SeatsBlocked', expect.stringMatching(/:blocked$/)],
    ['StaffActionRecorded', expect.stringMatching(/:staff$/)],
    ['SeatsUnblocked', expect.stringMatching(/:unblocked$/)],
    ['StaffActionRecorded', expect.stringMatching(/:staff$/)],
  ]);
  expect(changes()[14].data).toMatchObject({ eventId, seatIds: ['S-C-9'] });
  // each staff action's record follows its change, from the same script
  expect(
    changes()
      .filter((c) => c.type === 'StaffActionRecorded')
      .map((c) => [c.data.action, c.data.target, c.data.actor, c.data.reason]),
  ).toEqual([
    ['HOLD_FORCE_RELEASE', h3, 'admin-1', 'duplicate order'],
    ['BOOKING_CANCEL', bookingId, 'admin-1', 'refunded'],
    ['SEATS_BLOCK', 'S-C-9', 'admin-1', 'camera position'],
    ['SEATS_UNBLOCK', 'S-C-9', 'admin-1', 'camera position'],
  ]);
  const [created, extended, released, , booked, , forcedOut, , , best] = changes();
  expect(created.data).toMatchObject({ eventId, holdId: h1, userId: 'alice', seatIds: ['S-A-1', 'S-A-2'] });
  expect(Date.parse(extended.data.expireAt)).toBeGreaterThan(Date.parse(created.data.expireAt));
  expect(released.data).toMatchObject({ reason: 'RELEASED', seatIds: ['S-A-1', 'S-A-2'] });
  expect(booked.data).toMatchObject({ orderId: 'o-1', seatIds: ['S-A-3'] });
  expect(forcedOut.data).toMatchObject({ reason: 'FORCE_RELEASED', userId: 'bob', seatIds: ['S-A-4'] });
  expect(best.data.seatIds).toHaveLength(2);

  // seat.expired: the two SeatExpired only (the BookingCancelled is seat.status's alone), each the very
  // message seat.status carries. Both topics are sent in one acknowledged batch, so by now the broker
  // holds whatever seat.expired got of these changes: its count proves nothing else went there.
  expect(await topicMessageCount(process.env.KAFKA_TOPIC_SEAT_EXPIRED!, kafka.brokers)).toBe(2);
  await eventually(() => published(expired).length >= 2, 30_000, 'seat.expired has its 2 messages');
  const onExpired = published(expired);
  expect(onExpired.map((ce) => ce.type)).toEqual(['SeatExpired', 'SeatExpired']);
  const onStatus = new Map(published(status).map((ce) => [ce.id, ce]));
  for (const ce of onExpired) {
    expect(onStatus.get(ce.id)).toEqual(ce);
  }
});

it('Kafka down while seats change: every change arrives once Kafka is back, in the order made', async () => {
  const store = api.app.get(HoldStore);
  const redis = testRedisClient({ keyPrefix: process.env.REDIS_KEY_PREFIX });
  const before = changes().length;
  const made: string[] = [];
  await kafka.down();
  try {
    for (let i = 1; i <= 6; i++) {
      const h = await hold(alice, { seatIds: [`S-B-${i}`] });
      made.push(`${h}:created`);
      if (i % 2 === 0) {
        expect(
          (await api.call('POST', `/v1/holds/${h}/extend`, { token: alice, body: { ttlSeconds: 90 } }))
            .status,
        ).toBe(200);
        made.push(`${h}:extended:1`);
      }
      if (i % 3 === 0) {
        expect((await api.call('DELETE', `/v1/holds/${h}`, { token: alice })).status).toBe(204);
        made.push(`${h}:released`);
      }
    }
    // written to the outbox in the same steps as the changes, waiting there while Kafka is away
    await eventually(
      async () => (await redis.xlen(store.eventOutboxKey(eventId))) >= made.length,
      15_000,
      'the changes wait in the outbox',
    );
  } finally {
    await kafka.up(); // also when an assertion failed: the broker is the file's
  }
  const probe = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_STATUS!, kafka.brokers);
  try {
    await eventually(
      () =>
        new Set(
          probe
            .values()
            .filter((v) => v.data.eventId === eventId)
            .map((v) => v.id),
        ).size >=
        before + made.length,
      60_000,
      'every change on seat.status',
    );
    const seen = new Set<string>();
    const ids = probe
      .values()
      .filter((v) => v.data.eventId === eventId && !seen.has(v.id) && seen.add(v.id))
      .map((v) => v.id as string);
    expect(ids.slice(before)).toEqual(made);
  } finally {
    await probe.stop();
    await redis.quit();
  }
});

it('a priced hold confirmed: its HoldConfirmed carries the lines and sums its booking was sold for, valid against /docs/asyncapi', async () => {
  const priced = await createPricedShow(api, 5, 1);
  await setPrices(api, priced);
  await createPromo(api, priced, {
    code: 'TEN',
    kind: 'percent',
    value: 10,
    appliesTo: { categories: ['standard'] },
  });
  const made = await api.call('POST', `/v1/events/${priced}/holds`, {
    token: alice,
    body: { seats: [{ seatId: 'P-A-1' }, { seatId: 'S-A-1', ticketType: 'child' }], promoCode: 'TEN' },
  });
  expect(made.status).toBe(201);
  const booked = await api.call('POST', `/v1/holds/${made.body.holdId}/confirm`, {
    token: alice,
    body: { orderId: 'o-priced' },
  });
  expect(booked.status).toBe(201);
  const confirmedOf = () =>
    status.messages
      .filter((m) => m.key?.toString() === priced)
      .map((m) => JSON.parse(m.value!.toString()))
      .filter((ce) => ce.type === 'HoldConfirmed');
  await eventually(() => confirmedOf().length > 0, 30_000, 'the priced HoldConfirmed on seat.status');
  const [ce] = confirmedOf();
  const validate = validators.get('HoldConfirmed')!;
  expect([validate(ce), validate.errors]).toEqual([true, null]);
  expect(ce.data).toEqual({
    eventId: priced,
    holdId: made.body.holdId,
    userId: 'alice',
    seatIds: ['P-A-1', 'S-A-1'],
    orderId: 'o-priced',
    currency: 'EUR',
    priceListVersion: 1,
    promoCode: 'TEN',
    lines: [
      { seatId: 'P-A-1', category: 'premium', ticketType: 'adult', unitPrice: 9000, discount: 0 },
      { seatId: 'S-A-1', category: 'standard', ticketType: 'child', unitPrice: 2500, discount: 250 },
    ],
    subtotal: 11500,
    discountTotal: 250,
    total: 11250,
  });
  // the booking as its customer and staff read it tells the same figures
  expect(booked.body).toMatchObject({ total: 11250, lines: ce.data.lines, promoCode: 'TEN' });
});
