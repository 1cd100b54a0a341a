/**
 * Confirm against what PostgreSQL already decided: an attempt the reconciler gave up does not make the
 * hold unconfirmable, and a booking replays even after Redis forgot the hold.
 */
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { beginConfirmThenStop } from '@test/support/confirm-agreement';
import { Db, openDb } from '@test/support/db';
import { holdRecordKeys, seatStates } from '@test/support/hold-store';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

let api: Api;
let db: Db;
let redis: Redis;
let eventId: string;
let alice: string;

beforeAll(async () => {
  // waiters get a definitive answer (the concurrent-confirm case), not 503 BUSY
  api = await startApi({ SEAT_LOCK_WAIT_MS: '5000' });
  db = await openDb();
  redis = testRedisClient({ keyPrefix: process.env.REDIS_KEY_PREFIX });
  eventId = await createEvent(api, 1, 10);
  alice = await api.token('alice');
});
afterAll(async () => {
  await redis?.quit();
  await db?.close();
  await api?.close();
});

const hold = async (seatIds: string[]) => {
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds } });
  expect(r.status).toBe(201);
  return r.body as { holdId: string; fencingToken: number };
};
const confirm = (holdId: string, orderId: string) =>
  api.call('POST', `/v1/holds/${holdId}/confirm`, { token: alice, body: { orderId } });
const seatState = async (seat: string) =>
  (await seatStates(api.app.get(HoldStore), eventId)).get(seat) ?? 'AVAILABLE';

it('a confirm attempt given up in PostgreSQL but not yet in Redis: the next confirm finishes that and books (201)', async () => {
  const h = await hold(['S-A-1']);
  // a confirm that died after beginConfirm; the reconciler then wrote that attempt's ABANDONED marker
  // and died before telling Redis
  const begun = await beginConfirmThenStop(
    api,
    { holdId: h.holdId, eventId, seatIds: ['S-A-1'], token: alice },
    'alice',
    'o-died',
    60_000,
  );
  await db.rows(
    `INSERT INTO bookings (id, hold_id, event_id, user_id, status, fencing_token, seat_ids)
     VALUES ($1, $2, $3, 'alice', 'ABANDONED', $4, '{}')`,
    [randomUUID(), h.holdId, eventId, begun.fencingToken],
  );
  const r = await confirm(h.holdId, 'o-new');
  expect(r.status).toBe(201);
  expect(
    await db.rows(`SELECT status FROM bookings WHERE hold_id = $1 ORDER BY created_at`, [h.holdId]),
  ).toEqual([{ status: 'ABANDONED' }, { status: 'CONFIRMED' }]);
  expect(await db.count('booking_seats', 'event_id = $1 AND seat_id = $2', [eventId, 'S-A-1'])).toBe(1);
  expect(await seatState('S-A-1')).toBe('BOOKED');
  expect((await api.app.get(HoldStore).getHold(h.holdId))?.status).toBe('CONFIRMED');
});

it('replays a booking after Redis forgot the hold (retention passed, or data lost)', async () => {
  const h = await hold(['S-A-2', 'S-A-3']);
  const first = await confirm(h.holdId, 'o-keep');
  expect(first.status).toBe(201);
  await redis.del(...(await holdRecordKeys(redis, api.app.get(HoldStore), eventId)));
  expect(await api.app.get(HoldStore).getHold(h.holdId)).toBeNull();
  const again = await confirm(h.holdId, 'o-keep');
  expect(again.status).toBe(200);
  expect(again.body).toEqual(first.body);
  const other = await confirm(h.holdId, 'o-new');
  expect(other.status).toBe(409);
  expect(other.body.code).toBe('HOLD_NOT_ACTIVE');
  const read = await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice });
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ holdId: h.holdId, status: 'CONFIRMED', seatIds: ['S-A-2', 'S-A-3'] });
  // still someone else's business to nobody else
  const bob = await api.token('bob');
  expect((await api.call('GET', `/v1/holds/${h.holdId}`, { token: bob })).status).toBe(404);
  expect(
    (await api.call('POST', `/v1/holds/${h.holdId}/confirm`, { token: bob, body: { orderId: 'o-keep' } }))
      .status,
  ).toBe(404);
});

it('concurrent confirms of one hold with one orderId: one 201, the others replay 200, one booking', async () => {
  const h = await hold(['S-A-4']);
  const results = await Promise.all(Array.from({ length: 10 }, () => confirm(h.holdId, 'o-dup')));
  expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  expect(new Set(results.map((r) => r.body.bookingId)).size).toBe(1);
  expect(await db.count('bookings', 'hold_id = $1', [h.holdId])).toBe(1);
  expect(await seatState('S-A-4')).toBe('BOOKED');
});
