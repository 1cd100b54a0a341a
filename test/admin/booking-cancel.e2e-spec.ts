/**
 * An admin cancels a booking, against the real services (PostgreSQL, Redis, Kafka): the booking is
 * CANCELLED and its seats are available again in the same step, another customer can hold and book them,
 * a BookingCancelled (id: the booking id) reaches seat.status through the outbox relay, and nothing
 * reaches seat.expired (its consumers read SeatExpired alone). The cancel and its audit entry commit
 * together; refusals (403, 400, 404, 409) change and record nothing; two cancels racing: one wins.
 */
import { confirmHold, Held, holdSeats, seatStates } from '../support/confirm-agreement';
import { Db } from '../support/db';
import { eventually, TopicProbe, topicMessageCount } from '../support/kafka-probe';
import { Api } from '../support/seat-api';
import { StaffStageOnSeatStatus, startStaffStageOnSeatStatus } from '../support/staff-stage';

jest.setTimeout(120_000);

let stage: StaffStageOnSeatStatus;
let api: Api;
let db: Db;
let topic: TopicProbe;
let eventId: string;
let admin: string;
let agent: string;
let alice: string;
let bob: string;
let seat = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`);
let order = 0;

beforeAll(async () => {
  stage = await startStaffStageOnSeatStatus({ rows: 1, perRow: 40, customers: ['alice', 'bob'] });
  ({
    api,
    db,
    topic,
    eventId,
    admin,
    agent,
    customers: [alice, bob],
  } = stage);
});
afterAll(() => stage?.close());

/** A booking of `token`'s: its hold, confirmed, and the booking id. */
async function book(token: string, seats: string[]): Promise<Held & { bookingId: string }> {
  const h = await holdSeats(api, token, eventId, seats);
  const r = await confirmHold(api, h, `o-${++order}`);
  expect(r.status).toBe(201);
  return { ...h, bookingId: r.body.bookingId };
}
const cancel = (bookingId: string, token = admin, body: unknown = { reason: 'customer refunded' }) =>
  api.call('POST', `/v1/events/${eventId}/bookings/${bookingId}/cancel`, { token, body });
const pg = async (bookingId: string) => ({
  status: (await db.rows<{ status: string }>(`SELECT status FROM bookings WHERE id = $1`, [bookingId]))[0]
    ?.status,
  seats: await db.count('booking_seats', 'booking_id = $1', [bookingId]),
});
const entries = (bookingId: string) =>
  db.rows<{ actor: string; action: string; reason: string; status: string }>(
    `SELECT actor, action, reason, status FROM audit_entries WHERE target = $1`,
    [bookingId],
  );
const cancelledEvents = (bookingId: string) =>
  topic.values().filter((v) => v.type === 'BookingCancelled' && v.id === bookingId);

it('frees the seats at once, publishes BookingCancelled on seat.status (not seat.expired), and records it', async () => {
  const b = await book(alice, nextSeats(2));
  const r = await cancel(b.bookingId);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    bookingId: b.bookingId,
    status: 'CANCELLED',
    userId: 'alice',
    seatIds: b.seatIds,
  });
  expect(await pg(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0 });
  expect(await seatStates(api, b)).toEqual(['AVAILABLE', 'AVAILABLE']);
  expect(await entries(b.bookingId)).toEqual([
    { actor: 'admin-1', action: 'BOOKING_CANCEL', reason: 'customer refunded', status: 'DONE' },
  ]);
  const listed = await api.call('GET', `/v1/events/${eventId}/bookings`, { token: agent });
  expect(listed.body.items.map((i: { bookingId: string }) => i.bookingId)).not.toContain(b.bookingId);

  // someone else holds and books the same seats
  const again = await book(bob, b.seatIds);
  expect(await pg(again.bookingId)).toEqual({ status: 'CONFIRMED', seats: 2 });

  await eventually(() => cancelledEvents(b.bookingId).length === 1, 20_000, 'BookingCancelled published');
  const [ce] = cancelledEvents(b.bookingId);
  expect(ce).toMatchObject({
    specversion: '1.0',
    source: `/seat-hold/events/${eventId}`,
    subject: b.bookingId,
    data: { eventId, bookingId: b.bookingId, holdId: b.holdId, userId: 'alice', seatIds: b.seatIds },
  });
  const message = topic.messages.find((m) => m.headers?.ce_id?.toString() === b.bookingId)!;
  expect([message.key?.toString(), message.headers?.ce_type?.toString()]).toEqual([
    eventId,
    'BookingCancelled',
  ]);
  // seat.expired carries SeatExpired alone; the relay sends both topics in one acknowledged batch, so by
  // now the broker holds whatever it would have got (no hold of this test expired)
  expect(await topicMessageCount(process.env.KAFKA_TOPIC_SEAT_EXPIRED!)).toBe(0);
});

it('refuses, changing and recording nothing: 403 for agents and customers, 400 bad reason, 404 unknown, 409 cancelled already', async () => {
  const b = await book(alice, nextSeats(1));
  const done = await book(bob, nextSeats(1));
  expect((await cancel(done.bookingId)).status).toBe(200);
  const before = await db.count('audit_entries');
  const refusals: [Promise<{ status: number; body: any }>, number, string][] = [
    [cancel(b.bookingId, agent), 403, 'FORBIDDEN'],
    [cancel(b.bookingId, alice), 403, 'FORBIDDEN'],
    [cancel(b.bookingId, admin, {}), 400, 'VALIDATION_FAILED'],
    [cancel(b.bookingId, admin, { reason: ' ' }), 400, 'VALIDATION_FAILED'],
    [cancel(b.bookingId, admin, { reason: 'x'.repeat(501) }), 400, 'VALIDATION_FAILED'],
    [cancel('not-a-uuid'), 400, 'VALIDATION_FAILED'],
    [cancel(crypto.randomUUID()), 404, 'BOOKING_NOT_FOUND'],
    [
      api.call('POST', `/v1/events/${crypto.randomUUID()}/bookings/${b.bookingId}/cancel`, {
        token: admin,
        body: { reason: 'x' },
      }),
      404,
      'EVENT_NOT_FOUND',
    ],
    [cancel(done.bookingId), 409, 'BOOKING_CANCELLED'],
  ];
  for (const [call, status, code] of refusals) {
    const r = await call;
    expect([r.status, r.body.code]).toEqual([status, code]);
  }
  expect(await pg(b.bookingId)).toEqual({ status: 'CONFIRMED', seats: 1 });
  expect(await seatStates(api, b)).toEqual(['BOOKED']);
  expect(await db.count('audit_entries')).toBe(before);
});

it('two cancels of one booking racing: exactly one cancels it, one entry, one BookingCancelled, both stores agree', async () => {
  for (let i = 0; i < 5; i++) {
    const b = await book(alice, nextSeats(2));
    const answers = await Promise.all([cancel(b.bookingId), cancel(b.bookingId)]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses[0]).toBe(200);
    // the other found it cancelled (409), or the seats locked by the winner past its wait (503 BUSY)
    expect([409, 503]).toContain(statuses[1]);
    expect(await pg(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0 });
    expect(await seatStates(api, b)).toEqual(['AVAILABLE', 'AVAILABLE']);
    expect((await entries(b.bookingId)).map((e) => e.status)).toEqual(['DONE']);
    await eventually(() => cancelledEvents(b.bookingId).length >= 1, 20_000, 'BookingCancelled published');
    expect(cancelledEvents(b.bookingId)).toHaveLength(1);
  }
  expect(await db.count('audit_entries', "status = 'PENDING'")).toBe(0);
});
