/**
 * The reconciler's path through confirm: a confirm that never finished (it timed out on PostgreSQL, or
 * its process died) is decided from PostgreSQL once its deadline passed, by the reconciler job alone
 * (no client call in between), and the result is one state both stores and every client view agree on.
 */
import { Client } from 'pg';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import {
  beginConfirmThenStop,
  commitBookingAsConfirmWould,
  confirmHold,
  expectAgreement,
  holdSeats,
} from '@test/support/confirm-agreement';
import { Db, openDb } from '@test/support/db';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let eventId: string;
let store: HoldStore;
let alice: string;

beforeAll(async () => {
  api = await startApi({ SWEEPER_ENABLED: 'true', SWEEP_INTERVAL_MS: '200', CONFIRM_TIMEOUT_MS: '1000' });
  store = api.app.get(HoldStore);
  db = await openDb();
  eventId = await createEvent(api, 1, 10);
  alice = await api.token('alice');
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

const rowsOf = (holdId: string) =>
  db.rows<{ status: string; fencing_token: string }>(
    `SELECT status, fencing_token FROM bookings WHERE hold_id = $1 ORDER BY created_at`,
    [holdId],
  );
/** The reconciler is done with the hold: Redis no longer says CONFIRMING. Read from the store, not via the API. */
const decided = (holdId: string) =>
  eventually(
    async () => (await store.getHold(holdId))?.status !== 'CONFIRMING',
    15_000,
    `hold ${holdId} decided by the reconciler`,
  );

it('a confirm that timed out on a table lock: the reconciler gives that attempt up and the hold confirms again', async () => {
  const h = await holdSeats(api, alice, eventId, ['S-A-1']);
  const locker = new Client({ connectionString: process.env.DATABASE_URL });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    // EXCLUSIVE: reads still pass, every write waits (the confirm gets as far as writing its booking)
    await locker.query(`LOCK TABLE ${process.env.DATABASE_SCHEMA}.bookings IN EXCLUSIVE MODE`);
    const r = await confirmHold(api, h, 'o-timeout');
    expect(r.status).toBeGreaterThanOrEqual(500); // the booking could not be written in time
    await locker.query('ROLLBACK');
  } finally {
    await locker.end();
  }
  await decided(h.holdId);
  expect((await rowsOf(h.holdId)).map((r) => r.status)).toEqual(['ABANDONED']);
  await expectAgreement(api, db, h, { status: 'ACTIVE' });
  const again = await confirmHold(api, h, 'o-timeout');
  expect(again.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'o-timeout' });
});

it('died after the PostgreSQL commit: the reconciler marks the seats BOOKED', async () => {
  const h = await holdSeats(api, alice, eventId, ['S-A-2']);
  const begun = await beginConfirmThenStop(api, h, 'alice', 'order-1', 1000);
  await commitBookingAsConfirmWould(db, begun, 'order-1');
  await decided(h.holdId);
  expect((await store.getHold(h.holdId))?.status).toBe('CONFIRMED');
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'order-1' });
});

it('died before the PostgreSQL commit: that attempt is given up (a late commit of it loses), the hold confirms again', async () => {
  const h = await holdSeats(api, alice, eventId, ['S-A-3']);
  const begun = await beginConfirmThenStop(api, h, 'alice', 'order-2', 1000);
  await decided(h.holdId);
  expect(await rowsOf(h.holdId)).toEqual([
    { status: 'ABANDONED', fencing_token: String(begun.fencingToken) },
  ]);
  // the confirm that was "in flight" finally tries to commit its attempt: refused by the unique key
  await expect(commitBookingAsConfirmWould(db, begun, 'order-2')).rejects.toThrow(/duplicate key/);
  await db.rows('ROLLBACK');
  await expectAgreement(api, db, h, { status: 'ACTIVE' });
  const again = await confirmHold(api, h, 'order-2');
  expect(again.status).toBe(201);
  await expectAgreement(api, db, h, { status: 'CONFIRMED', orderId: 'order-2' });
});
