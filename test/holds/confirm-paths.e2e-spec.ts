/**
 * Every path through confirm ends in one state that Redis and PostgreSQL agree on, and the client's
 * next call (whichever it is) gets there: success, a PostgreSQL error, a PostgreSQL timeout (a table
 * lock), a crash before the commit (CONFIRMING left past its deadline) and a crash after the commit
 * (booking committed, Redis never finished). The reconciler's path is in test/expiry/confirm-repair.
 */
import { Client } from 'pg';
import {
  beginConfirmThenStop,
  commitBookingAsConfirmWould,
  confirmHold,
  expectAgreement,
  holdSeats,
  pgVerdict,
} from '@test/support/confirm-agreement';
import { Db, openDb } from '@test/support/db';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let eventId: string;
let alice: string;
let seat = 0;
/** Fresh seats for each hold: S-A-1.., S-B-1.. */
const nextSeats = (n: number) =>
  Array.from({ length: n }, () => `S-${'ABCDEFGH'[Math.floor(seat / 10)]}-${(seat++ % 10) + 1}`);

beforeAll(async () => {
  api = await startApi({
    CONFIRM_TIMEOUT_MS: '2000',
    SEAT_LOCK_WAIT_MS: '3000',
    HOLD_MAX_SEATS_PER_USER: '100',
  });
  db = await openDb();
  eventId = await createEvent(api, 8, 10);
  alice = await api.token('alice');
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

const hold = (n = 2) => holdSeats(api, alice, eventId, nextSeats(n));

it('success: 201, then every view says CONFIRMED like PostgreSQL', async () => {
  const h = await hold();
  const r = await confirmHold(api, h, 'o-ok');
  expect(r.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-ok' });
});

it('PostgreSQL error: 503 BOOKING_UNAVAILABLE with Retry-After, the hold stays yours, a retry books it', async () => {
  const h = await hold();
  await db.rows(`CREATE FUNCTION refuse_booking() RETURNS trigger LANGUAGE plpgsql AS
    $$ BEGIN RAISE EXCEPTION 'bookings refused by the test'; END $$`);
  await db.rows(`CREATE TRIGGER refuse_booking BEFORE INSERT ON bookings FOR EACH ROW
    WHEN (NEW.status = 'CONFIRMED') EXECUTE FUNCTION refuse_booking()`);
  try {
    const r = await confirmHold(api, h, 'o-err');
    expect([r.status, r.body.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectAgreement(api, db, h, { status: 'ACTIVE' });
  } finally {
    await db.rows(`DROP TRIGGER refuse_booking ON bookings`);
    await db.rows(`DROP FUNCTION refuse_booking()`);
  }
  const retry = await confirmHold(api, h, 'o-err');
  expect(retry.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-err' });
});

it('PostgreSQL timeout (table lock): 503 BOOKING_UNAVAILABLE with Retry-After; the retry after the lock books it', async () => {
  const h = await hold();
  const locker = new Client({ connectionString: process.env.DATABASE_URL });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    // EXCLUSIVE: reads still pass, every write waits (the confirm gets as far as writing its booking)
    await locker.query(`LOCK TABLE ${process.env.DATABASE_SCHEMA}.bookings IN EXCLUSIVE MODE`);
    const r = await confirmHold(api, h, 'o-slow');
    expect([r.status, r.body.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await locker.query('ROLLBACK');
  } finally {
    await locker.end();
  }
  const retry = await confirmHold(api, h, 'o-slow');
  expect(retry.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-slow' });
});

describe.each(['GET', 'confirm', 'extend', 'release'] as const)('the next call is %s', (first) => {
  /** The client's first call after the crash; then every view must agree with PostgreSQL. */
  const firstCall = async (h: Awaited<ReturnType<typeof hold>>) => {
    switch (first) {
      case 'GET':
        return api.call('GET', `/v1/holds/${h.holdId}`, { token: alice });
      case 'confirm':
        return confirmHold(api, h, 'o-next');
      case 'extend':
        return api.call('POST', `/v1/holds/${h.holdId}/extend`, { token: alice, body: { ttlSeconds: 60 } });
      case 'release':
        return api.call('DELETE', `/v1/holds/${h.holdId}`, { token: alice });
    }
  };

  it('crash before the commit (CONFIRMING past its deadline, nothing in PostgreSQL): the hold is yours again', async () => {
    const h = await hold();
    await beginConfirmThenStop(api, h, 'alice', 'o-died', 1);
    const r = await firstCall(h);
    switch (first) {
      case 'GET':
        expect([r.status, r.body.status]).toEqual([200, 'ACTIVE']);
        await expectAgreement(api, db, h, { status: 'ACTIVE' });
        break;
      case 'confirm':
        expect(r.status).toBe(201);
        await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-next' });
        break;
      case 'extend':
        expect([r.status, r.body.status]).toEqual([200, 'ACTIVE']);
        await expectAgreement(api, db, h, { status: 'ACTIVE' });
        break;
      case 'release':
        expect(r.status).toBe(204);
        await expectAgreement(api, db, h, { status: 'RELEASED' });
        break;
    }
  });

  it('crash after the commit (booking in PostgreSQL, Redis not finished): every view says CONFIRMED', async () => {
    const h = await hold();
    const begun = await beginConfirmThenStop(api, h, 'alice', 'o-done', 60_000);
    await commitBookingAsConfirmWould(db, begun, 'o-done');
    const r = await firstCall(h);
    switch (first) {
      case 'GET':
        expect([r.status, r.body.status]).toEqual([200, 'CONFIRMED']);
        break;
      case 'confirm':
        expect([r.status, r.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']); // another orderId than the booking's
        break;
      case 'extend':
        expect([r.status, r.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
        break;
      case 'release':
        expect([r.status, r.body.code]).toEqual([409, 'HOLD_CONFIRMED']);
        break;
    }
    await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-done' });
    expect((await pgVerdict(db, h.holdId)).orders).toEqual(['o-done']);
  });
});
