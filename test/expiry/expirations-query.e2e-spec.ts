/**
 * GET /v1/events/{eventId}/expirations: its query (limit, offset) is validated like a body, by a DTO
 * through the one validation pipe: `limit=abc` is a 400 (not 200 with the default), `offset=-1` blames
 * `offset`, and OpenAPI marks both optional (they have defaults).
 */
import { Db, openDb } from '@test/support/db';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let admin: string;
let eventId: string;

/** Rows the expiry consumer would have written: seat S-A-<i> expired i seconds after a fixed time. */
async function recordExpiries(count: number): Promise<void> {
  for (let i = 1; i <= count; i++) {
    await db.rows(
      `INSERT INTO hold_expiries (event_message_id, hold_id, event_id, seat_id, user_id, expired_at, fencing_token)
       VALUES ($1, 'h', $2, $3, 'u', $4, $5)`,
      [`m-${i}`, eventId, `S-A-${i}`, new Date(Date.UTC(2030, 0, 1, 0, 0, i)), i],
    );
  }
}

beforeAll(async () => {
  api = await startApi();
  db = await openDb();
  admin = await api.token('root', ['admin']);
  eventId = await createEvent(api, 1, 5);
  await recordExpiries(105);
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

const list = (query: string) =>
  api.call('GET', `/v1/events/${eventId}/expirations${query}`, { token: admin });

it('uses limit 100 and offset 0 when they are left out, and honours both when given', async () => {
  const all = await list('');
  expect(all.status).toBe(200);
  expect(all.body.total).toBe(105);
  expect(all.body.items).toHaveLength(100);
  expect(all.body.items[0].seatId).toBe('S-A-105'); // newest first
  const page = await list('?limit=10&offset=100');
  expect(page.status).toBe(200);
  expect(page.body.items.map((i: { seatId: string }) => i.seatId)).toEqual([
    'S-A-5',
    'S-A-4',
    'S-A-3',
    'S-A-2',
    'S-A-1',
  ]);
  expect((await list('?limit=1000&offset=0')).body.items).toHaveLength(105);
  expect((await list('?limit=1')).body.items).toHaveLength(1);
});

it.each([
  ['limit=abc', 'limit'],
  ['limit=0', 'limit'],
  ['limit=1001', 'limit'],
  ['limit=-5', 'limit'],
  ['limit=1.5', 'limit'],
  ['limit=1e2', 'limit'],
  ['limit=0x10', 'limit'],
  ['limit=', 'limit'],
  ['limit=10&limit=20', 'limit'],
  ['offset=-1', 'offset'],
  ['offset=abc', 'offset'],
  ['offset=1.5', 'offset'],
  ['limit=10&offset=-1', 'offset'],
  ['page=2', 'page'],
  ['limit=10&sort=asc', 'sort'],
])('refuses ?%s with 400 naming %s, and only it', async (query, field) => {
  const r = await list(`?${query}`);
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED', requestId: expect.any(String) });
  const fields = new Set((r.body.errors as { field: string }[]).map((e) => e.field));
  expect([...fields]).toEqual([field]);
});

it('documents limit and offset as optional, with their defaults and bounds', async () => {
  const doc = (await api.call('GET', '/docs-json')).body as {
    paths: Record<
      string,
      { get: { parameters: { name: string; in: string; required?: boolean; schema: object }[] } }
    >;
  };
  const params = doc.paths['/v1/events/{eventId}/expirations'].get.parameters.filter((p) => p.in === 'query');
  const byName = Object.fromEntries(params.map((p) => [p.name, p]));
  expect(Object.keys(byName).sort()).toEqual(['limit', 'offset']);
  expect(byName.limit.required ?? false).toBe(false);
  expect(byName.offset.required ?? false).toBe(false);
  expect(byName.limit.schema).toMatchObject({ type: 'integer', default: 100, minimum: 1, maximum: 1000 });
  expect(byName.offset.schema).toMatchObject({ type: 'integer', default: 0, minimum: 0 });
});
