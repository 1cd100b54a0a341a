/**
 * A booking's cancel and its audit entry commit together or not at all, across PostgreSQL (the booking
 * row, written with the PENDING entry) and Redis (its seats), behind TCP proxies that go silent the way a
 * partitioned host does; afterwards both stores and the audit agree, and a retry at once ends as one
 * successful cancel would (cancelled once, recorded once; refused 409 when the first call had cancelled):
 *   - PostgreSQL silent at the entry's commit: 503 AUDIT_UNAVAILABLE; the commit may land after it (the
 *     booking row CANCELLED under a PENDING entry, its seats still booked in Redis), and a retry at once
 *     cancels the booking once;
 *   - Redis silent once the booking row is CANCELLED: 503; once Redis is back the entry is decided from its
 *     ledger: applied (DONE, seats free) or given up (entry deleted, the booking CONFIRMED again with
 *     its seats, which Redis never freed), and PostgreSQL follows Redis either way;
 *   - the cancel's Redis reply lost: 503, the seats were freed all the same, and the audit records it;
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
/** How many times the audit, as read, says the booking was cancelled. */
async function audited(bookingId: string): Promise<number> {
  const r = await auditRead();
  expect(r.status).toBe(200);
  return (r.body.items as { target: string }[]).filter((e) => e.target === bookingId).length;
}
const cancelledOnce = { status: 'CANCELLED', seats: 0, entries: ['DONE'] };

/** Cancelled once in both stores and the audit; one more cancel is refused and changes nothing. */
async function expectCancelledOnce(b: Awaited<ReturnType<typeof booked>>) {
  const again = await cancel(b.bookingId);
  expect([again.status, again.body.code]).toEqual([409, 'BOOKING_CANCELLED']);
  expect(await audited(b.bookingId)).toBe(1);
  expect(await pgState(b.bookingId)).toEqual(cancelledOnce);
  expect(await seatStates(api, b)).toEqual(['AVAILABLE', 'AVAILABLE']);
}

it('PostgreSQL silent at the entry commit: 503 AUDIT_UNAVAILABLE, and a retry at once cancels the booking once', async () => {
  const b = await booked();
  const froze = stage.freezeAtEntryCommit();
  const answer = cancel(b.bookingId);
  await froze;
  const r = await answer;
  expect([r.status, r.body.code]).toEqual([503, 'AUDIT_UNAVAILABLE']);
  pg.thaw();
  // the held-back commit lands now: the booking row CANCELLED under a PENDING entry, its seats still
  // booked in Redis, which never saw the action
  await eventually(
    async () => (await pgState(b.bookingId)).entries.join() === 'PENDING',
    5000,
    'the late commit',
  );
  expect(await pgState(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0, entries: ['PENDING'] });
  expect(await seatStates(api, b)).toEqual(['BOOKED', 'BOOKED']);
  const retry = await cancel(b.bookingId);
  expect([retry.status, retry.body.status]).toEqual([200, 'CANCELLED']);
  await expectCancelledOnce(b);
});

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
    const retry = await cancel(b.bookingId);
    expect([retry.status, retry.body.status]).toEqual([200, 'CANCELLED']);
  } else {
    expect(state).toEqual(cancelledOnce);
    expect(await seatStates(api, b)).toEqual(['AVAILABLE', 'AVAILABLE']);
  }
  await expectCancelledOnce(b);
});

it("the cancel's Redis reply lost: 503, the seats are freed all the same and recorded; a retry at once is refused", async () => {
  const b = await booked();
  const froze = redis.freezeOn('bookingCancel');
  const answer = cancel(b.bookingId);
  await froze;
  const r = await answer; // the request gave up on the reply, and could not ask Redis what became of it
  expect(r.status).toBe(503);
  expect(await pgState(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0, entries: ['PENDING'] });
  redis.thaw(); // the cancel is delivered now, after the request gave up on it
  await expectCancelledOnce(b);
});

it('PostgreSQL silent once the seats are freed: the cancel stands (200), recorded DONE once PostgreSQL answers', async () => {
  const b = await booked();
  const froze = pg.freezeOn('UPDATE audit_entries');
  const r = await cancel(b.bookingId);
  await froze;
  expect([r.status, r.body.status]).toEqual([200, 'CANCELLED']);
  expect(await pgState(b.bookingId)).toEqual({ status: 'CANCELLED', seats: 0, entries: ['PENDING'] });
  pg.thaw();
  await expectCancelledOnce(b);
});
