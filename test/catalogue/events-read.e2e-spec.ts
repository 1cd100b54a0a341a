/**
 * Reading events over real HTTP: the list (keyset pages, upcoming / past, name search) and one event (its
 * layout as posted, seat counts by status, its settings in effect), for any signed-in caller.
 */
import { randomUUID } from 'node:crypto';
import { startCatalogueStage } from '@test/support/catalogue-stage';
import { Db } from '@test/support/db';
import { Api } from '@test/support/seat-api';

let api: Api;
let db: Db;
let admin: string;
let alice: string;

beforeAll(async () => {
  ({ api, db, admin, alice } = await startCatalogueStage());
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

const create = async (name: string, startsAt: string, sections?: unknown) => {
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name,
      startsAt,
      sections: sections ?? [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] }],
    },
  });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
};
const list = (query: string, token = alice) => api.call('GET', `/v1/events?${query}`, { token });
const names = (r: { body: { items: { name: string }[] } }) => r.body.items.map((e) => e.name);

describe('GET /v1/events', () => {
  // names carry a tag of their own: the file's schema is shared by its tests, the list by all its events
  const tag = `Tour${randomUUID().slice(0, 6)}`;
  const ids: string[] = [];

  beforeAll(async () => {
    for (let i = 1; i <= 5; i++) {
      ids.push(await create(`${tag} night ${i}`, `2031-0${i}-01T19:00:00Z`));
    }
    // past events cannot be created through the API (startsAt must be in the future): stored directly
    for (let i = 1; i <= 3; i++) {
      await db.rows(`INSERT INTO events (id, name, starts_at, seat_count) VALUES ($1, $2, $3, 10)`, [
        randomUUID(),
        `${tag} past ${i}`,
        `2020-0${i}-01T19:00:00Z`,
      ]);
    }
  });

  it('pages upcoming events soonest first, each page after the last, with a cursor until the end', async () => {
    const first = await list(`q=${tag}&limit=2`);
    expect(first.status).toBe(200);
    expect(names(first)).toEqual([`${tag} night 1`, `${tag} night 2`]);
    expect(first.body.items[0]).toEqual({
      eventId: ids[0],
      name: `${tag} night 1`,
      startsAt: '2031-01-01T19:00:00.000Z',
      seatCount: 4,
      sales: 'OPEN',
    });
    const second = await list(`q=${tag}&limit=2&cursor=${first.body.nextCursor}`);
    expect(names(second)).toEqual([`${tag} night 3`, `${tag} night 4`]);
    const last = await list(`q=${tag}&limit=2&cursor=${second.body.nextCursor}`);
    expect(names(last)).toEqual([`${tag} night 5`]);
    expect(last.body.nextCursor).toBeUndefined();
  });

  it('lists past events latest first, and finds by any part of the name in any letter case', async () => {
    const past = await list(`when=past&q=${tag}`);
    expect(names(past)).toEqual([`${tag} past 3`, `${tag} past 2`, `${tag} past 1`]);
    const one = await list(`q=${tag.toUpperCase()}%20NIGHT%204`);
    expect(names(one)).toEqual([`${tag} night 4`]);
    // % and _ are text, not patterns
    expect((await list(`q=${tag}%25`)).body.items).toEqual([]);
    expect((await list(`q=${tag}_`)).body.items).toEqual([]);
  });

  it('refuses bad parameters with 400 naming them, and a token-less call with 401', async () => {
    for (const [query, field] of [
      ['when=soon', 'when'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['q=', 'q'],
      ['cursor=not*base64', 'cursor'],
      ['cursor=bm9wZQ', 'cursor'],
      ['page=2', 'page'],
    ]) {
      const r = await list(query);
      expect([query, r.status, r.body.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
      expect(r.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    // a cursor of the upcoming list is not one of the past list
    const upcoming = await list(`q=${tag}&limit=1`);
    const wrong = await list(`when=past&cursor=${upcoming.body.nextCursor}`);
    expect([wrong.status, wrong.body.errors[0].field]).toEqual([400, 'cursor']);
    expect((await api.call('GET', '/v1/events')).status).toBe(401);
  });
});

describe('GET /v1/events/{eventId}', () => {
  it('answers the layout in the order posted, counts by status and the settings in effect', async () => {
    const eventId = await create('Layout', '2031-06-01T19:00:00Z', [
      {
        name: 'STALLS',
        category: 'standard',
        rows: [
          { row: 'B', seats: 3 },
          { row: 'A', seats: 2 },
        ],
      },
      { name: 'BOX', category: 'premium', rows: [{ row: '1', seats: 2 }] },
    ]);
    const held = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['STALLS-B-1', 'BOX-1-2'] },
    });
    expect(held.status).toBe(201);
    const booked = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: ['STALLS-A-1'] },
    });
    const confirm = await api.call('POST', `/v1/holds/${booked.body.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'o-detail' },
    });
    expect(confirm.status).toBe(201);

    const r = await api.call('GET', `/v1/events/${eventId.toUpperCase()}`, { token: await api.token('bob') });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      eventId,
      name: 'Layout',
      startsAt: '2031-06-01T19:00:00.000Z',
      seatCount: 7,
      sales: 'OPEN',
      sections: [
        {
          name: 'STALLS',
          category: 'standard',
          rows: [
            { row: 'B', seats: 3 },
            { row: 'A', seats: 2 },
          ],
        },
        { name: 'BOX', category: 'premium', rows: [{ row: '1', seats: 2 }] },
      ],
      counts: { total: 7, available: 4, held: 2, booked: 1 },
      // the deployment's limits (test environment: the .env.example defaults)
      settings: {
        sales: 'OPEN',
        defaultHoldTtlSeconds: 300,
        maxHoldTtlSeconds: 900,
        maxSeatsPerHold: 10,
        maxSeatsPerUser: 10,
        maxExtensions: 3,
        maxHoldLifetimeSeconds: 1800,
        ownLimits: [],
        orphanRule: 'none', // the test environment's EVENT_ORPHAN_RULE
        accessibleSeatsForAll: 'when-others-gone',
      },
    });
  });

  it('answers 404 EVENT_NOT_FOUND for an unknown event, 400 for a malformed id, 401 without a token', async () => {
    const missing = await api.call('GET', `/v1/events/${randomUUID()}`, { token: alice });
    expect([missing.status, missing.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    const bad = await api.call('GET', '/v1/events/1234', { token: alice });
    expect([bad.status, bad.body.code, bad.body.errors[0].field]).toEqual([
      400,
      'VALIDATION_FAILED',
      'eventId',
    ]);
    expect((await api.call('GET', `/v1/events/${randomUUID()}`)).status).toBe(401);
  });
});
