/**
 * A block or unblock of seats changes PostgreSQL (seat_blocks, written with its PENDING audit entry) and
 * Redis (the seats) as one audited action, behind TCP proxies that go silent the way a partitioned host
 * does. For each of the two, with PostgreSQL silent at the entry's commit (the commit may land after the
 * 503), PostgreSQL silent once the seats changed (the entry's DONE), and the Redis reply lost: afterwards
 * seat_blocks, the seat map and the audit agree, and a retry at once ends as one successful call would
 * (applied once, recorded once; refused 409 when the first call had made the change).
 */
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
/** Sorted as the service sorts them: an action's target is its seat ids joined in that order. */
const nextSeats = (n: number) => Array.from({ length: n }, () => `S-A-${++seat}`).sort();

beforeAll(async () => {
  stage = await startSilencedStaffStage({ rows: 1, perRow: 40, customers: ['alice'] });
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

const change = (what: 'block' | 'unblock', seatIds: string[]) =>
  api.call('POST', `/v1/events/${eventId}/seats/${what}`, {
    token: admin,
    body: { seatIds, reason: 'house seats' },
  });

/** The audit entries of the seats' actions as PostgreSQL stores them (also PENDING ones), oldest first. */
const stored = async (seats: string[]) =>
  (
    await db.rows<{ action: string; status: string }>(
      `SELECT action, status FROM audit_entries WHERE event_id = $1 AND target = $2 ORDER BY created_at`,
      [eventId, seats.join(',')],
    )
  ).map((e) => `${e.action} ${e.status}`);

/** The seats as each store shows them: seat_blocks rows, the public map (Redis), the audit as read. */
async function seen(seats: string[]) {
  const audit = await api.call('GET', `/v1/events/${eventId}/audit?limit=1000`, { token: admin });
  expect(audit.status).toBe(200);
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice });
  const status = new Map<string, string>(
    (map.body.seats as { seatId: string; status: string }[]).map((s) => [s.seatId, s.status]),
  );
  return {
    rows: await db.count('seat_blocks', 'event_id = $1 AND seat_id = ANY($2)', [eventId, seats]),
    map: seats.map((s) => status.get(s)),
    audited: (audit.body.items as { action: string; target: string }[])
      .filter((e) => e.target === seats.join(','))
      .map((e) => e.action),
    stored: await stored(seats),
  };
}

const blockedOnce = (seats: string[]) => ({
  rows: seats.length,
  map: seats.map(() => 'BOOKED'), // a blocked seat reads BOOKED in the public map
  audited: ['SEATS_BLOCK'],
  stored: ['SEATS_BLOCK DONE'],
});
const unblockedOnce = (seats: string[]) => ({
  rows: 0,
  map: seats.map(() => 'AVAILABLE'),
  audited: ['SEATS_BLOCK', 'SEATS_UNBLOCK'],
  stored: ['SEATS_BLOCK DONE', 'SEATS_UNBLOCK DONE'],
});

/** One more call is refused as blocked already, and every store shows the seats blocked once. */
async function expectBlockedOnce(seats: string[]) {
  const again = await change('block', seats);
  expect([again.status, again.body.code, again.body.errors]).toEqual([
    409,
    'SEATS_UNAVAILABLE',
    seats.map((seatId) => ({ seatId, reason: 'BLOCKED' })),
  ]);
  expect(await seen(seats)).toEqual(blockedOnce(seats));
}

/** One more unblock is refused, every store shows the seats blocked then unblocked once, and they can be held. */
async function expectUnblockedOnce(seats: string[]) {
  const again = await change('unblock', seats);
  expect([again.status, again.body.code]).toEqual([409, 'SEAT_NOT_BLOCKED']);
  expect(await seen(seats)).toEqual(unblockedOnce(seats));
  const held = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: seats },
  });
  expect(held.status).toBe(201);
}

async function blocked(n: number): Promise<string[]> {
  const seats = nextSeats(n);
  expect((await change('block', seats)).status).toBe(200);
  return seats;
}

describe('block', () => {
  it('PostgreSQL silent at the entry commit: 503 AUDIT_UNAVAILABLE, and a retry at once blocks the seats once', async () => {
    const seats = nextSeats(2);
    const froze = stage.freezeAtEntryCommit();
    const answer = change('block', seats);
    await froze;
    const r = await answer;
    expect([r.status, r.body.code]).toEqual([503, 'AUDIT_UNAVAILABLE']);
    pg.thaw();
    // the held-back commit lands now: a PENDING entry and its seat_blocks rows, which Redis never saw
    await eventually(
      async () => (await stored(seats)).join() === 'SEATS_BLOCK PENDING',
      5000,
      'the late commit',
    );
    const retry = await change('block', seats);
    expect([retry.status, retry.body.status]).toEqual([200, 'BLOCKED']);
    await expectBlockedOnce(seats);
  });

  it('PostgreSQL silent once the seats are blocked: 200, recorded once PostgreSQL answers; a retry is refused', async () => {
    const seats = nextSeats(2);
    const froze = pg.freezeOn('UPDATE audit_entries');
    const r = await change('block', seats);
    await froze;
    expect([r.status, r.body.status]).toEqual([200, 'BLOCKED']);
    expect(await stored(seats)).toEqual(['SEATS_BLOCK PENDING']);
    pg.thaw();
    await expectBlockedOnce(seats);
  });

  it('the Redis reply lost: 503, the seats are blocked all the same and recorded; a retry at once is refused', async () => {
    const seats = nextSeats(2);
    const froze = redis.freezeOn('seatsBlock');
    const answer = change('block', seats);
    await froze;
    const r = await answer; // the request gave up on the reply, and could not ask Redis what became of it
    expect(r.status).toBe(503);
    expect(await stored(seats)).toEqual(['SEATS_BLOCK PENDING']);
    redis.thaw(); // the block is delivered now, after the request gave up on it
    await expectBlockedOnce(seats);
  });
});

describe('unblock', () => {
  it('PostgreSQL silent at the entry commit: 503 AUDIT_UNAVAILABLE, and a retry at once unblocks the seats once', async () => {
    const seats = await blocked(2);
    const froze = stage.freezeAtEntryCommit();
    const answer = change('unblock', seats);
    await froze;
    const r = await answer;
    expect([r.status, r.body.code]).toEqual([503, 'AUDIT_UNAVAILABLE']);
    pg.thaw();
    // the late commit deletes the seat_blocks rows with a PENDING entry; Redis still has the seats blocked
    await eventually(
      async () => (await stored(seats)).join() === 'SEATS_BLOCK DONE,SEATS_UNBLOCK PENDING',
      5000,
      'the late commit',
    );
    const retry = await change('unblock', seats);
    expect([retry.status, retry.body.status]).toEqual([200, 'AVAILABLE']);
    await expectUnblockedOnce(seats);
  });

  it('PostgreSQL silent once the seats are unblocked: 200, recorded once PostgreSQL answers; a retry is refused', async () => {
    const seats = await blocked(2);
    const froze = pg.freezeOn('UPDATE audit_entries');
    const r = await change('unblock', seats);
    await froze;
    expect([r.status, r.body.status]).toEqual([200, 'AVAILABLE']);
    expect(await stored(seats)).toEqual(['SEATS_BLOCK DONE', 'SEATS_UNBLOCK PENDING']);
    pg.thaw();
    await expectUnblockedOnce(seats);
  });

  it('the Redis reply lost: 503, the seats are unblocked all the same and recorded; a retry at once is refused', async () => {
    const seats = await blocked(2);
    const froze = redis.freezeOn('seatsUnblock');
    const answer = change('unblock', seats);
    await froze;
    const r = await answer;
    expect(r.status).toBe(503);
    expect(await stored(seats)).toEqual(['SEATS_BLOCK DONE', 'SEATS_UNBLOCK PENDING']);
    redis.thaw();
    await expectUnblockedOnce(seats);
  });
});
