/**
 * A confirm that died half-way is repaired, not left half-done: the reconciler (run by the sweeper once
 * the confirm deadline passed) finishes it when PostgreSQL has the booking, and gives the seats back
 * when it does not — after which a late commit of that confirm is refused by the unique key.
 */
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/holds/store';
import { eventually } from '../support/eventually';
import { Api, createEvent, startApi } from '../support/seat-api';

jest.setTimeout(60_000);

let api: Api;
let pg: Client;
let eventId: string;
let store: HoldStore;
const schema = process.env.DATABASE_SCHEMA;

beforeAll(async () => {
  api = await startApi({ SWEEPER_ENABLED: 'true', SWEEP_INTERVAL_MS: '200', CONFIRM_TIMEOUT_MS: '1000' });
  store = api.app.get(HoldStore);
  pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  eventId = await createEvent(api, 1, 10);
});
afterAll(async () => {
  await pg?.end();
  await api?.close();
});

/** A hold whose confirm began (CONFIRMING in Redis) and whose process then died. */
async function confirmThatDied(seat: string, orderId: string) {
  const holdId = HoldIds.generate(eventId);
  const created = await store.createHold({
    eventId,
    holdId,
    userId: 'alice',
    seatIds: [seat],
    ttlMs: 60_000,
    maxLifetimeMs: 120_000,
    maxSeatsPerUser: 10,
    fencingToken: 1,
  });
  expect(created.ok).toBe(true);
  const begun = await store.beginConfirm({
    holdId,
    userId: 'alice',
    orderId,
    fencingToken: 2,
    confirmTimeoutMs: 1000,
  });
  expect(begun.ok).toBe(true);
  return holdId;
}

const bookingStatus = async (holdId: string) =>
  (await pg.query(`SELECT status FROM ${schema}.bookings WHERE hold_id = $1`, [holdId])).rows[0]?.status as
    string | undefined;
const seatState = async (seat: string) => (await store.seatStates(eventId)).get(seat) ?? 'AVAILABLE';

it('died after the PostgreSQL commit: the reconciler marks the seats BOOKED', async () => {
  const holdId = await confirmThatDied('S-A-1', 'order-1');
  const bookingId = randomUUID();
  await pg.query(
    `INSERT INTO ${schema}.bookings (id, hold_id, order_id, event_id, user_id, status, fencing_token, seat_ids)
     VALUES ($1, $2, 'order-1', $3, 'alice', 'CONFIRMED', 2, ARRAY['S-A-1'])`,
    [bookingId, holdId, eventId],
  );
  await pg.query(
    `INSERT INTO ${schema}.booking_seats (event_id, seat_id, booking_id) VALUES ($1, 'S-A-1', $2)`,
    [eventId, bookingId],
  );
  await eventually(
    async () => (await store.getHold(holdId))?.status === 'CONFIRMED',
    15_000,
    'hold CONFIRMED',
  );
  expect(await seatState('S-A-1')).toBe('BOOKED');
});

it('died before the PostgreSQL commit: the hold is given back and a late commit loses on the unique key', async () => {
  const holdId = await confirmThatDied('S-A-2', 'order-2');
  await eventually(
    async () => (await store.getHold(holdId))?.status === 'ACTIVE',
    15_000,
    'hold ACTIVE again',
  );
  expect(await bookingStatus(holdId)).toBe('ABANDONED');
  expect(await seatState('S-A-2')).toBe('HELD');
  // the confirm that was "in flight" finally tries to commit: refused, nothing booked
  const alice = await api.token('alice');
  const late = await api.call('POST', `/v1/holds/${holdId}/confirm`, {
    token: alice,
    body: { orderId: 'order-2' },
  });
  expect(late.status).toBe(409);
  const seats = await pg.query(
    `SELECT count(*)::int AS n FROM ${schema}.booking_seats WHERE seat_id = 'S-A-2'`,
  );
  expect(seats.rows[0].n).toBe(0);
});
