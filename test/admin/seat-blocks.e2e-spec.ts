/**
 * Admins block and unblock seats, against the real services: a blocked seat is never held or booked,
 * reads BOOKED in the public map (never why), is listed with its reason for staff, and stays blocked when
 * Redis loses the event's seats (PostgreSQL is the record, repaired at the event's first load). Blocking a
 * held or booked seat is refused 409, nothing half-done; refusals (403, 400, 404, 409) change and record
 * nothing; a block racing a hold of the same seat: exactly one wins and both stores agree.
 */
import { REDIS_CLIENT } from '@app/redis';
import Redis from 'ioredis';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { confirmHold, holdSeats } from '../support/confirm-agreement';
import { Db } from '../support/db';
import { Api, startApi } from '../support/seat-api';
import { startStaffStage } from '../support/staff-stage';

jest.setTimeout(60_000);

let api: Api;
let db: Db;
let eventId: string;
let admin: string;
let agent: string;
let alice: string;
let seat = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`);

beforeAll(async () => {
  ({
    api,
    db,
    eventId,
    admin,
    agent,
    customers: [alice],
  } = await startStaffStage({
    env: { RATE_LIMIT_ENABLED: 'false' },
    rows: 1,
    perRow: 60,
    customers: ['alice'],
  }));
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const change = (what: 'block' | 'unblock', seatIds: unknown, token = admin, body: object = {}) =>
  api.call('POST', `/v1/events/${eventId}/seats/${what}`, {
    token,
    body: { seatIds, reason: 'production kill: camera platform', ...body },
  });
const hold = (seatIds: string[], token = alice) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds } });
async function mapOf(on: Api = api): Promise<{ text: string; status: Map<string, string> }> {
  const r = await on.call('GET', `/v1/events/${eventId}/seats`, { token: alice });
  const seats = r.body.seats as { seatId: string; status: string }[];
  return { text: JSON.stringify(r.body), status: new Map(seats.map((s) => [s.seatId, s.status])) };
}
const blockedRows = (seatIds: string[]) =>
  db.count('seat_blocks', 'event_id = $1 AND seat_id = ANY($2)', [eventId, seatIds]);

it('a blocked seat is never held, reads BOOKED in the public map without its reason, and is back on sale once unblocked', async () => {
  const seats = nextSeats(2);
  const r = await change('block', seats);
  expect([r.status, r.body]).toEqual([200, { eventId, seatIds: seats, status: 'BLOCKED' }]);
  expect(await blockedRows(seats)).toBe(2);

  const map = await mapOf();
  expect(seats.map((s) => map.status.get(s))).toEqual(['BOOKED', 'BOOKED']);
  expect(map.text).not.toContain('camera');
  const refused = await hold([seats[0]]);
  expect([refused.status, refused.body.code]).toEqual([409, 'SEATS_UNAVAILABLE']);
  const forCustomer = await api.call('POST', `/v1/events/${eventId}/holds/on-behalf`, {
    token: agent,
    body: { customerId: 'carol', seatIds: [seats[1]] },
  });
  expect([forCustomer.status, forCustomer.body.code]).toEqual([409, 'SEATS_UNAVAILABLE']);

  const listed = await api.call('GET', `/v1/events/${eventId}/seats/blocks`, { token: agent });
  expect(listed.status).toBe(200);
  expect(listed.body.items.filter((b: { seatId: string }) => seats.includes(b.seatId))).toEqual(
    seats.map((seatId) => ({
      seatId,
      reason: 'production kill: camera platform',
      blockedBy: 'admin-1',
      blockedAt: expect.any(String),
    })),
  );
  const notForCustomers = await api.call('GET', `/v1/events/${eventId}/seats/blocks`, { token: alice });
  expect(notForCustomers.status).toBe(403);

  const back = await change('unblock', seats, admin, { reason: 'platform removed' });
  expect([back.status, back.body.status]).toEqual([200, 'AVAILABLE']);
  expect(await blockedRows(seats)).toBe(0);
  expect((await hold(seats)).status).toBe(201);
  const audit = await db.rows<{ action: string; target: string; reason: string; status: string }>(
    `SELECT action, target, reason, status FROM audit_entries WHERE event_id = $1 AND target = $2 ORDER BY created_at`,
    [eventId, seats.join(',')],
  );
  expect(audit).toEqual([
    {
      action: 'SEATS_BLOCK',
      target: seats.join(','),
      reason: 'production kill: camera platform',
      status: 'DONE',
    },
    { action: 'SEATS_UNBLOCK', target: seats.join(','), reason: 'platform removed', status: 'DONE' },
  ]);
});

it('stays blocked when Redis loses the seats: restored from PostgreSQL at the event first load', async () => {
  const seats = nextSeats(1);
  expect((await change('block', seats)).status).toBe(200);
  const store = api.app.get(HoldStore);
  // the event's seats hash lost, as a Redis restart without persistence loses it
  await api.app.get<Redis>(REDIS_CLIENT).del(store.layout.eventKeys(eventId).seats);
  const fresh = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  try {
    expect((await mapOf(fresh)).status.get(seats[0])).toBe('BOOKED');
    const r = await fresh.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: seats },
    });
    expect([r.status, r.body.code]).toEqual([409, 'SEATS_UNAVAILABLE']);
  } finally {
    await fresh.close();
  }
});

it('refuses, changing and recording nothing: 403, 400, 404, and 409 for held, booked or blocked seats and for unblocking a free one', async () => {
  const held = await holdSeats(api, alice, eventId, nextSeats(1));
  const bookedHold = await holdSeats(api, await api.token('bob'), eventId, nextSeats(1));
  expect((await confirmHold(api, bookedHold, 'o-booked')).status).toBe(201);
  const blocked = nextSeats(1);
  expect((await change('block', blocked)).status).toBe(200);
  const free = nextSeats(1);
  const entries = await db.count('audit_entries', 'event_id = $1', [eventId]);
  const rows = await db.count('seat_blocks');

  const refusals: [Promise<{ status: number; body: any }>, number, string][] = [
    [change('block', free, agent), 403, 'FORBIDDEN'],
    [change('block', free, alice), 403, 'FORBIDDEN'],
    [change('unblock', blocked, agent), 403, 'FORBIDDEN'],
    [change('block', free, admin, { reason: '' }), 400, 'VALIDATION_FAILED'],
    [change('block', free, admin, { reason: 'x'.repeat(501) }), 400, 'VALIDATION_FAILED'],
    [change('block', [], admin), 400, 'VALIDATION_FAILED'],
    [change('block', ['bad seat'], admin), 400, 'VALIDATION_FAILED'],
    [change('block', [...free, 'NOPE-1'], admin), 404, 'SEAT_NOT_FOUND'],
    [
      api.call('POST', `/v1/events/${crypto.randomUUID()}/seats/block`, {
        token: admin,
        body: { seatIds: free, reason: 'x' },
      }),
      404,
      'EVENT_NOT_FOUND',
    ],
    [change('block', [...free, ...held.seatIds]), 409, 'SEATS_UNAVAILABLE'],
    [change('block', [...free, ...bookedHold.seatIds]), 409, 'SEATS_UNAVAILABLE'],
    [change('block', [...free, ...blocked]), 409, 'SEATS_UNAVAILABLE'],
    [change('unblock', [...free, ...blocked]), 409, 'SEAT_NOT_BLOCKED'],
  ];
  for (const [call, status, code] of refusals) {
    const r = await call;
    expect([r.status, r.body.code]).toEqual([status, code]);
  }
  // each refusal names the seats and why (for staff: an admin may see that a seat is held or booked)
  const heldReason = await change('block', [...free, ...held.seatIds]);
  expect(heldReason.body.errors).toEqual([{ seatId: held.seatIds[0], reason: 'HELD' }]);
  const others = await change('block', [...bookedHold.seatIds, ...blocked]);
  expect(others.body.errors).toEqual([
    { seatId: bookedHold.seatIds[0], reason: 'BOOKED' },
    { seatId: blocked[0], reason: 'BLOCKED' },
  ]);
  expect(await db.count('audit_entries', 'event_id = $1', [eventId])).toBe(entries);
  expect(await db.count('seat_blocks')).toBe(rows);
  const map = await mapOf();
  expect([free[0], held.seatIds[0]].map((s) => map.status.get(s))).toEqual(['AVAILABLE', 'HELD']);
  expect((await hold(free)).status).toBe(201);
});

it('a block racing a hold of the same seat: exactly one wins, and PostgreSQL, Redis and the audit agree', async () => {
  for (let i = 0; i < 8; i++) {
    const seats = nextSeats(1);
    const customer = await api.token(`racer-${i}`);
    const [blocked, held] = await Promise.all([change('block', seats), hold(seats, customer)]);
    expect([blocked.status, held.status].filter((s) => s === 200 || s === 201)).toHaveLength(1);
    const recorded = await db.count('audit_entries', "event_id = $1 AND target = $2 AND status = 'DONE'", [
      eventId,
      seats[0],
    ]);
    const status = (await mapOf()).status.get(seats[0]);
    if (blocked.status === 200) {
      expect([held.status, held.body.code]).toEqual([409, 'SEATS_UNAVAILABLE']);
      expect([await blockedRows(seats), recorded, status]).toEqual([1, 1, 'BOOKED']);
    } else {
      expect([409, 503]).toContain(blocked.status);
      expect([await blockedRows(seats), recorded, status]).toEqual([0, 0, 'HELD']);
    }
  }
  expect(await db.count('audit_entries', "status = 'PENDING'")).toBe(0);
});
