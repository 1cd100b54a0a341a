/**
 * Catalogue over real HTTP: creating events (admin only, validated, all-or-nothing), the seat map
 * (never who holds a seat), the demo seed, and the repair of a Redis that lost its data (at an event's
 * first load).
 */
import Redis from 'ioredis';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { retainUntil } from '@test/support/hold-store';
import { DEMO_EVENT_ID } from '../../apps/seat-api/src/catalogue/demo-seed.service';
import { startCatalogueStage } from '@test/support/catalogue-stage';
import { Db } from '@test/support/db';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let admin: string;
let alice: string;

beforeAll(async () => {
  ({ api, db, admin, alice } = await startCatalogueStage());
});
afterAll(async () => {
  await db?.close();
  await api?.close(); // the API of the last test: the repair and the seed tests restart it
});

const layout = (overrides: Record<string, unknown> = {}) => ({
  name: 'Hamlet',
  startsAt: '2030-03-01T19:30:00Z',
  sections: [
    {
      name: 'STALLS',
      category: 'standard',
      rows: [
        { row: 'A', seats: 3 },
        { row: 'B', seats: 2 },
      ],
    },
    { name: 'BOX', category: 'premium', rows: [{ row: '1', seats: 4 }] },
  ],
  ...overrides,
});
const createRaw = (body: unknown, token = admin) => api.call('POST', '/v1/events', { token, body });
const seatMap = (eventId: string, token = alice) => api.call('GET', `/v1/events/${eventId}/seats`, { token });

describe('POST /v1/events', () => {
  it('creates the event and every seat in PostgreSQL, and answers 201 { eventId, seatCount }', async () => {
    const r = await createRaw(layout());
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ eventId: expect.stringMatching(/^[0-9a-f-]{36}$/), seatCount: 9 });
    expect(await db.count('seats', 'event_id = $1', [r.body.eventId])).toBe(9);
    const [event] = await db.rows<{ name: string; seat_count: number }>(
      'SELECT name, seat_count FROM events WHERE id = $1',
      [r.body.eventId],
    );
    expect(event).toEqual({ name: 'Hamlet', seat_count: 9 });
    // in its shard's events index at once, kept until start + HOLD_EVENT_RETENTION_SECONDS
    expect(await retainUntil(api.app.get(REDIS_CLIENT), api.app.get(HoldStore), r.body.eventId)).toBe(
      Date.parse('2030-03-01T19:30:00Z') + 2 * 86400 * 1000,
    );
    const map = await seatMap(r.body.eventId);
    expect(map.body.counts).toEqual({ total: 9, available: 9, held: 0, booked: 0 });
    expect(map.body.seats.map((s: { seatId: string }) => s.seatId)).toEqual(
      expect.arrayContaining(['STALLS-A-1', 'STALLS-A-3', 'STALLS-B-2', 'BOX-1-4']),
    );
  });

  it('needs a token (401) and the admin role (403)', async () => {
    const none = await api.call('POST', '/v1/events', { body: layout() });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ statusCode: 401, code: 'UNAUTHORIZED' });
    const user = await createRaw(layout(), alice);
    expect(user.status).toBe(403);
    expect(user.body).toMatchObject({ statusCode: 403, code: 'FORBIDDEN' });
  });

  it.each([
    ['no name', { name: undefined }, ['name']],
    ['a date that is not ISO 8601', { startsAt: 'next friday' }, ['startsAt']],
    ['no sections', { sections: [] }, ['sections']],
    ['an unknown field', { venue: 'Globe' }, ['venue']],
    [
      'a nested mistake',
      { sections: [{ name: 'A B', category: 'c', rows: [{ row: 'A', seats: 0 }] }] },
      ['sections.0.name', 'sections.0.rows.0.seats'],
    ],
    [
      'a nested unknown field',
      { sections: [{ name: 'A', category: 'c', rows: [{ row: 'A', seats: 1, price: 5 }] }] },
      ['sections.0.rows.0.price'],
    ],
    [
      'a repeated section/row',
      {
        sections: [
          { name: 'A', category: 'c', rows: [{ row: '1', seats: 2 }] },
          { name: 'A', category: 'c', rows: [{ row: '1', seats: 2 }] },
        ],
      },
      ['sections'],
    ],
    [
      'more seats than an event may have',
      {
        sections: [
          {
            name: 'HUGE',
            category: 'c',
            rows: Array.from({ length: 201 }, (_, i) => ({ row: `R${i}`, seats: 500 })),
          },
        ],
      },
      ['sections'],
    ],
  ])('refuses %s with 400 naming the fields, and creates nothing', async (_name, change, fields) => {
    const before = await db.count('events');
    const seatsBefore = await db.count('seats');
    const r = await createRaw(layout(change));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      statusCode: 400,
      code: 'VALIDATION_FAILED',
      requestId: expect.any(String),
    });
    expect((r.body.errors as { field: string }[]).map((e) => e.field)).toEqual(
      expect.arrayContaining(fields),
    );
    expect(await db.count('events')).toBe(before);
    expect(await db.count('seats')).toBe(seatsBefore);
  });
});

describe('GET /v1/events/:eventId/seats', () => {
  it('shows HELD and BOOKED seats but never who holds them', async () => {
    const eventId = await createEvent(api, 1, 5);
    const held = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-1'] },
    });
    const booked = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-2'] },
    });
    const confirm = await api.call('POST', `/v1/holds/${booked.body.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'o-map' },
    });
    expect(confirm.status).toBe(201);
    const map = await seatMap(eventId, await api.token('bob'));
    expect(map.status).toBe(200);
    expect(map.body.counts).toEqual({ total: 5, available: 3, held: 1, booked: 1 });
    const byId = new Map((map.body.seats as { seatId: string }[]).map((s) => [s.seatId, s]));
    expect(byId.get('S-A-1')).toEqual({
      eventId,
      seatId: 'S-A-1',
      section: 'S',
      row: 'A',
      number: 1,
      category: 'standard',
      status: 'HELD',
    });
    expect(byId.get('S-A-2')).toMatchObject({ status: 'BOOKED' });
    const text = JSON.stringify(map.body);
    expect(text).not.toContain('alice');
    expect(text).not.toContain(held.body.holdId);
  });

  it('answers 404 EVENT_NOT_FOUND for an unknown event, 400 for a malformed id, and needs no token', async () => {
    const missing = await seatMap('0b7c8f7e-1d2a-4c3b-9e8f-7a6b5c4d3e2f');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: 'EVENT_NOT_FOUND' });
    const bad = await seatMap('1234');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'eventId', message: 'must be a UUID' }]);
    // public: a browser's EventSource cannot send a token, and the map never says who holds a seat
    expect((await api.call('GET', `/v1/events/${await createEvent(api, 1, 1)}/seats`)).status).toBe(200);
  });

  it('finds an event created after an earlier 404 for it (misses are not cached) and registers it', async () => {
    const eventId = '5f0c2c1e-8f7a-4e2b-9c1d-3a4b5c6d7e8f';
    expect((await seatMap(eventId)).status).toBe(404);
    await db.rows(`INSERT INTO events (id, name, starts_at, seat_count) VALUES ($1, 'late', now(), 1)`, [
      eventId,
    ]);
    await db.rows(
      `INSERT INTO seats (event_id, seat_id, section, row, number, category, position) VALUES ($1, 'X-1-1', 'X', '1', 1, 'c', 0)`,
      [eventId],
    );
    expect((await seatMap(eventId)).body.counts.total).toBe(1);
    // first use registers an event Redis did not know (e.g. registration failed when it was created)
    expect(await retainUntil(api.app.get(REDIS_CLIENT), api.app.get(HoldStore), eventId)).not.toBeNull();
  });
});

describe('startup', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  });
  afterAll(() => redis.quit());

  it("repairs a Redis that lost its data at the event's first load: registered again, booked seats BOOKED again", async () => {
    const eventId = await createEvent(api, 1, 4);
    const h = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-3', 'S-A-4'] },
    });
    expect(
      (
        await api.call('POST', `/v1/holds/${h.body.holdId}/confirm`, {
          token: alice,
          body: { orderId: 'o-r' },
        })
      ).status,
    ).toBe(201);
    await api.close();
    // Redis comes back empty (no persistence, failover to an empty replica...)
    const keys = await redis.keys(`${process.env.REDIS_KEY_PREFIX}*`);
    await redis.del(...keys.map((k) => k.slice(process.env.REDIS_KEY_PREFIX!.length)));
    expect(await redis.keys(`${process.env.REDIS_KEY_PREFIX}*`)).toEqual([]);

    api = await startApi();
    const store = api.app.get(HoldStore);
    // boot visits no stored event: the event is repaired by the first load of it, before that load answers
    expect(await retainUntil(api.app.get(REDIS_CLIENT), store, eventId)).toBeNull();
    const map = await seatMap(eventId);
    expect(map.body.counts).toEqual({ total: 4, available: 2, held: 0, booked: 2 });
    expect(await retainUntil(api.app.get(REDIS_CLIENT), store, eventId)).toBe(
      Date.parse('2030-01-01T20:00:00Z') + 2 * 86400 * 1000,
    );
    const again = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: await api.token('bob'),
      body: { seatIds: ['S-A-4'] },
    });
    expect(again.status).toBe(409);
    expect(again.body.errors).toEqual([{ seatId: 'S-A-4', reason: 'BOOKED' }]);
  });

  it('seeds the demo event with SEED_DEMO_EVENT=true, idempotently across restarts', async () => {
    await api.close();
    api = await startApi({ SEED_DEMO_EVENT: 'true' });
    await api.close();
    api = await startApi({ SEED_DEMO_EVENT: 'true' });
    const map = await seatMap(DEMO_EVENT_ID);
    expect(map.status).toBe(200);
    expect(map.body.counts.total).toBe(200);
    expect(map.body.seats.map((s: { seatId: string }) => s.seatId)).toEqual(
      expect.arrayContaining(['HALL-A-1', 'HALL-J-20']),
    );
    expect(await db.count('events', 'id = $1', [DEMO_EVENT_ID])).toBe(1);
    expect(await db.count('seats', 'event_id = $1', [DEMO_EVENT_ID])).toBe(200);
    process.env.SEED_DEMO_EVENT = 'false';
  });
});
