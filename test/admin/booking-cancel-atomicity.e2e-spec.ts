/**
 * A booking's cancel and its audit entry commit together or not at all, across PostgreSQL (the booking
 * row, written with the PENDING entry) and Redis (its seats), behind TCP proxies that go silent the way a
 * partitioned host does:
 *   - Redis silent once the booking row is CANCELLED: 503; once Redis is back the entry is decided from its
 *     ledger: applied (DONE, seats free) or given up (entry deleted, the booking CONFIRMED again with
 *     its seats, which Redis never freed), and PostgreSQL follows Redis either way;
 *   - PostgreSQL silent once the seats are freed: the cancel stands (200) and is recorded DONE once
 *     PostgreSQL answers.
 */
import { confirmHold, holdSeats, seatStates } from '../support/confirm-agreement';
import { Db } from '../support/db';
import { eventually } from '../support/eventually';
import { Api } from '../support/seat-api';
import { SilencedStaffStage, startSilencedStaffStage } from '../support/staff-stage';
import { TcpProxy } from '../support/tcp-proxy';

jest.setTimeout(120_000);

let stage: SilencedStaffStage;
let pg: TcpProxy;
let redis: TcpProxy;
let api: Api;
let db: Db;
let eventId: string;
let admin: string;
let alice: string;
let seat = 0;
let order = 0;
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`);

beforeAll(async () => {
  stage = await startSilencedStaffStage({ rows: 1, perRow: 20, customers: ['alice'] });
  ({
    pg,
    redis,
    api,
    db,
    eventId,
    admin,
    customers: [alice],
  } = stage);
});
afterEach(() => stage.thaw());
afterAll(() => stage?.close());

async function booked() {
  const h = await holdSeats(api, alice, eventId, nextSeats(2));
  const r = await confirmHold(api, h, `o-${++order}`);
  expect(r.status).toBe(201);
  return { ...h, bookingId: r.body.bookingId as string };
}
const cancel = (bookingId: string) =>
  api.call('POST', `/v1/events/${eventId}/bookings/${bookingId}/cancel`, {
    token: admin,
    body: { reason: 'test' },
  });
const pgState = async (bookingId: string) => ({
  status: (await db.rows<{ status: string }>(`SELECT status FROM bookings WHERE id = $1`, [bookingId]))[0]
    .status,
  seats: await db.count('booking_seats', 'booking_id = $1', [bookingId]),
  entries: (
    await db.rows<{ status: string }>(`SELECT status FROM audit_entries WHERE target = $1`, [bookingId])
  ).map((e) => e.status),
});
const auditRead = () => api.call('GET', `/v1/events/${eventId}/audit?limit=1000`, { token: admin });

it('Redis silent once the booking row is CANCELLED: 503, then both stores agree on one outcome and nothing is left pending', async () => {
  const b = await booked();
  const froze = pg.freezeOn('INSERT INTO audit_entries');
  const answer = cancel(b.bookingId);
  await froze;
  redis.freeze(); // from here on Redis hears nothing of this request until thawed
  pg.thaw();
  const r = await answer;
  expect(r.status).toBe(503);
  expect(await pgState(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0, entries: ['PENDING'] });
  redis.thaw();
  // the held-back script reaches Redis now, or the action is given up first: a read once the writer's
  // time is up decides the entry from Redis's ledger, and the booking row follows
  await eventually(
    async () =>
      (await auditRead()).status === 200 && !(await pgState(b.bookingId)).entries.includes('PENDING'),
    15_000,
    'the pending entry decided',
  );
  const state = await pgState(b.bookingId);
  if (state.entries.length === 0) {
    // given up: the booking is CONFIRMED again with its seats, which Redis never freed
    expect(state).toEqual({ status: 'CONFIRMED', seats: 2, entries: [] });
    expect(await seatStates(api, b)).toEqual(['BOOKED', 'BOOKED']);
  } else {
    expect(state).toEqual({ status: 'CANCELLED', seats: 0, entries: ['DONE'] });
    expect(await seatStates(api, b)).toEqual(['AVAILABLE', 'AVAILABLE']);
  }
});

it('PostgreSQL silent once the seats are freed: the cancel stands (200), recorded DONE once PostgreSQL answers', async () => {
  const b = await booked();
  const froze = pg.freezeOn('UPDATE audit_entries');
  const r = await cancel(b.bookingId);
  await froze;
  expect([r.status, r.body.status]).toEqual([200, 'CANCELLED']);
  expect(await pgState(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0, entries: ['PENDING'] });
  pg.thaw();
  expect((await auditRead()).status).toBe(200);
  expect(await pgState(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0, entries: ['DONE'] });
  expect(await seatStates(api, b)).toEqual(['AVAILABLE', 'AVAILABLE']);
});
