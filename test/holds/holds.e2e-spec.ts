/** The holds API over real HTTP against real Redis and PostgreSQL: every row of the API table. */
import { Client } from 'pg';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, sleep, startApi } from '@test/support/seat-api';

let api: Api;
let alice: string;
let bob: string;
let eventId: string;

beforeAll(async () => {
  api = await startApi({
    HOLD_MIN_TTL_SECONDS: '1',
    HOLD_MAX_SEATS_PER_USER: '10',
    HOLD_MAX_EXTENSIONS: '2',
    HOLD_MAX_LIFETIME_SECONDS: '100',
  });
  alice = await api.token('alice');
  bob = await api.token('bob');
  eventId = await createEvent(api, 4, 10);
});
afterAll(() => api.close());

const hold = (token: string, seatIds: string[], ttlSeconds?: number, headers?: Record<string, string>) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds, ttlSeconds }, headers });
const seatMap = async () => {
  const r = await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice });
  return new Map<string, string>(
    (r.body.seats as { seatId: string; status: string }[]).map((s) => [s.seatId, s.status]),
  );
};

describe('events', () => {
  it('creates an event for admins only, and shows its seat map', async () => {
    const r = await api.call('POST', '/v1/events', {
      token: alice,
      body: {
        name: 'x',
        startsAt: '2030-01-01T00:00:00Z',
        sections: [{ name: 'A', category: 'c', rows: [{ row: 'A', seats: 1 }] }],
      },
    });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN', requestId: expect.any(String) });
    const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice });
    expect(map.status).toBe(200);
    expect(map.body.counts).toEqual({ total: 40, available: 40, held: 0, booked: 0 });
    expect(map.body.seats[0]).toEqual({
      seatId: 'S-A-1',
      section: 'S',
      row: 'A',
      number: 1,
      category: 'standard',
      status: 'AVAILABLE',
      eventId,
    });
  });

  it('answers 404 for an unknown event and 400 for a malformed id', async () => {
    expect(
      (await api.call('GET', `/v1/events/6f1c1f6e-7d2c-4f7e-9d1a-2b7f3c9e8a11/seats`, { token: alice })).body
        .code,
    ).toBe('EVENT_NOT_FOUND');
    const bad = await api.call('GET', `/v1/events/not-a-uuid/seats`, { token: alice });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'eventId', message: 'must be a UUID' }]);
  });
});

describe('authentication', () => {
  it('refuses a missing or bad token with 401 (the seat map and health are public)', async () => {
    const body = { seatIds: ['S-A-1'] };
    expect((await api.call('POST', `/v1/events/${eventId}/holds`, { body })).status).toBe(401);
    expect((await api.call('POST', `/v1/events/${eventId}/holds`, { body, token: 'x.y.z' })).status).toBe(
      401,
    );
    expect((await api.call('GET', `/v1/events/${eventId}/seats`)).status).toBe(200);
    expect((await api.call('GET', `/health/live`)).status).toBe(200);
  });
});

describe('holds', () => {
  it('holds seats all or none, shows them HELD, and names each unavailable seat', async () => {
    const r = await hold(alice, ['S-A-1', 'S-A-2'], 60);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      eventId,
      userId: 'alice',
      status: 'ACTIVE',
      seatIds: ['S-A-1', 'S-A-2'],
      extensionsUsed: 0,
    });
    expect(r.body.expiresInSeconds).toBeGreaterThanOrEqual(59);
    expect(typeof r.body.fencingToken).toBe('number');
    const map = await seatMap();
    expect([map.get('S-A-1'), map.get('S-A-2'), map.get('S-A-3')]).toEqual(['HELD', 'HELD', 'AVAILABLE']);
    const clash = await hold(bob, ['S-A-2', 'S-A-3']);
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({
      code: 'SEATS_UNAVAILABLE',
      errors: [{ seatId: 'S-A-2', reason: 'HELD' }],
    });
    expect((await seatMap()).get('S-A-3')).toBe('AVAILABLE'); // nothing half-taken
  });

  it('answers 404 SEAT_NOT_FOUND with the unknown seat ids', async () => {
    const r = await hold(alice, ['S-A-9', 'Z-Z-1']);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: 'SEAT_NOT_FOUND', errors: [{ seatId: 'Z-Z-1' }] });
  });

  it('caps the seats one user holds in an event (422)', async () => {
    const carol = await api.token('carol');
    expect((await hold(carol, ['S-D-1', 'S-D-2', 'S-D-3', 'S-D-4', 'S-D-5', 'S-D-6'])).status).toBe(201);
    const over = await hold(carol, ['S-D-7', 'S-D-8', 'S-D-9', 'S-D-10', 'S-B-10']);
    expect(over.status).toBe(422);
    expect(over.body.code).toBe('HOLD_LIMIT_EXCEEDED');
  });

  it('reads your own hold, and hides other users’ holds behind 404', async () => {
    const h = (await hold(alice, ['S-C-1'], 60)).body;
    const mine = await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice });
    expect(mine.status).toBe(200);
    expect(mine.body.holdId).toBe(h.holdId);
    for (const [method, path, body] of [
      ['GET', `/v1/holds/${h.holdId}`, undefined],
      ['POST', `/v1/holds/${h.holdId}/extend`, { ttlSeconds: 30 }],
      ['DELETE', `/v1/holds/${h.holdId}`, undefined],
      ['POST', `/v1/holds/${h.holdId}/confirm`, { orderId: 'o-1' }],
    ] as const) {
      const r = await api.call(method, path, { token: bob, body });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('HOLD_NOT_FOUND');
    }
    expect((await api.call('GET', `/v1/holds/garbage`, { token: alice })).status).toBe(404);
  });

  it('extends from now, up to the extension cap and the lifetime cap', async () => {
    const h = (await hold(alice, ['S-C-2'], 5)).body;
    const e1 = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 60 },
    });
    expect(e1.status).toBe(200);
    expect(e1.body.extensionsUsed).toBe(1);
    expect(e1.body.expiresInSeconds).toBeGreaterThanOrEqual(59);
    expect(
      (await api.call('POST', `/v1/holds/${h.holdId}/extend`, { token: alice, body: { ttlSeconds: 60 } }))
        .status,
    ).toBe(200);
    const e3 = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 60 },
    });
    expect(e3.status).toBe(422);
    expect(e3.body.code).toBe('EXTENSION_LIMIT_REACHED');
    const long = await hold(alice, ['S-C-3'], 5);
    const tooLong = await api.call('POST', `/v1/holds/${long.body.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 150 },
    });
    expect(tooLong.status).toBe(422); // lifetime cap 100 s from creation
    expect(tooLong.body.code).toBe('HOLD_LIFETIME_EXCEEDED');
  });

  it('releases with 204, again 204, and frees the seats', async () => {
    const h = (await hold(alice, ['S-C-4'], 60)).body;
    expect((await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: alice })).status).toBe(204);
    expect((await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: alice })).status).toBe(204);
    expect((await seatMap()).get('S-C-4')).toBe('AVAILABLE');
    expect((await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice })).body.status).toBe('RELEASED');
    const ext = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 30 },
    });
    expect(ext.status).toBe(409);
    expect(ext.body.code).toBe('HOLD_NOT_ACTIVE');
  });

  it('shows a hold past its expireAt as AVAILABLE before any sweep, and refuses to confirm it', async () => {
    const h = (await hold(alice, ['S-C-5'], 1)).body;
    const read = () => api.call('GET', `/v1/holds/${h.holdId}`, { token: alice });
    await eventually(async () => (await read()).body.status === 'EXPIRED', 5000, 'the hold read as EXPIRED');
    expect((await seatMap()).get('S-C-5')).toBe('AVAILABLE');
    expect((await read()).body).toMatchObject({
      status: 'EXPIRED',
      expiresInSeconds: 0,
      endedAt: expect.any(String),
    });
    const c = await api.call('POST', `/v1/holds/${h.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'late' },
    });
    expect(c.status).toBe(409);
    expect(c.body.code).toBe('HOLD_EXPIRED');
    expect((await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: alice })).status).toBe(204);
    expect((await hold(bob, ['S-C-5'], 60)).status).toBe(201);
  });
});

const bookedRows = async (seat: string) => {
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  try {
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM ${process.env.DATABASE_SCHEMA}.booking_seats WHERE event_id = $1 AND seat_id = $2`,
      [eventId, seat],
    );
    return rows[0].n as number;
  } finally {
    await pg.end();
  }
};

describe('confirm', () => {
  it('books the seats (201), replays the same orderId (200), refuses another (409), and never double-books', async () => {
    const h = (await hold(alice, ['S-C-6', 'S-C-7'], 60)).body;
    const first = await api.call('POST', `/v1/holds/${h.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'order-1' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      holdId: h.holdId,
      orderId: 'order-1',
      eventId,
      seatIds: ['S-C-6', 'S-C-7'],
      status: 'CONFIRMED',
    });
    const again = await api.call('POST', `/v1/holds/${h.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'order-1' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const other = await api.call('POST', `/v1/holds/${h.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'order-2' },
    });
    expect(other.status).toBe(409);
    expect((await seatMap()).get('S-C-6')).toBe('BOOKED');
    expect((await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: alice })).status).toBe(409);
    expect((await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice })).body.status).toBe('CONFIRMED');
    const taken = await hold(bob, ['S-C-6']);
    expect(taken.body).toMatchObject({
      code: 'SEATS_UNAVAILABLE',
      errors: [{ seatId: 'S-C-6', reason: 'BOOKED' }],
    });
    const pg = new Client({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM ${process.env.DATABASE_SCHEMA}.booking_seats WHERE event_id = $1`,
      [eventId],
    );
    await pg.end();
    expect(rows[0].n).toBe(2);
  });

  it('confirm racing expiry ends booked or free, never both', async () => {
    for (let i = 1; i <= 5; i++) {
      const seat = `S-B-${i + 4}`;
      const h = (await hold(bob, [seat], 1)).body;
      await sleep(900 + i * 40);
      const c = await api.call('POST', `/v1/holds/${h.holdId}/confirm`, {
        token: bob,
        body: { orderId: `race-${i}` },
      });
      expect([201, 409]).toContain(c.status);
      // Redis and PostgreSQL tell the same story: booked in both, or free in both
      const state = (await seatMap()).get(seat);
      const rows = await bookedRows(seat);
      expect([state, rows]).toEqual(c.status === 201 ? ['BOOKED', 1] : ['AVAILABLE', 0]);
    }
  });
});

describe('idempotency', () => {
  it('replays the first answer for the same key and body, refuses another body with 422', async () => {
    const key = { 'idempotency-key': `k-${Date.now()}` };
    const first = await hold(alice, ['S-A-9'], 60, key);
    expect(first.status).toBe(201);
    const replay = await hold(alice, ['S-A-9'], 60, key);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const other = await hold(alice, ['S-A-10'], 60, key);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // keys are per user: bob's same key is his own
    expect((await hold(bob, ['S-A-10'], 60, key)).status).toBe(201);
  });
});

describe('metrics', () => {
  it('counts holds created and refused by reason, and extend/release/confirm outcomes', async () => {
    const text = (await api.call('GET', '/metrics')).body as string;
    const value = (series: string) =>
      Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    expect(value('seat_holds_created_total')).toBeGreaterThan(5);
    expect(value('seat_holds_rejected_total{reason="SEATS_UNAVAILABLE"}')).toBeGreaterThanOrEqual(1);
    expect(value('seat_holds_rejected_total{reason="SEAT_NOT_FOUND"}')).toBeGreaterThanOrEqual(1);
    expect(value('seat_holds_rejected_total{reason="HOLD_LIMIT_EXCEEDED"}')).toBeGreaterThanOrEqual(1);
    expect(value('seat_hold_changes_total{action="confirm",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('seat_hold_changes_total{action="extend",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(value('seat_hold_changes_total{action="release",outcome="ok"}')).toBeGreaterThanOrEqual(1);
  });

  it('times every answer by route pattern and the status actually sent, refusals included', async () => {
    const text = (await api.call('GET', '/metrics')).body as string;
    const count = (labels: string) =>
      Number(
        new RegExp(`^http_request_duration_seconds_count\\{${labels}\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
      );
    const route = 'route="/v1/events/:eventId/holds"';
    expect(count(`method="POST",${route},status="201"`)).toBeGreaterThan(5);
    expect(count(`method="POST",${route},status="409"`)).toBeGreaterThanOrEqual(1);
  });
});
