/**
 * Bad input to extend, confirm, read and release: 400 naming the fields (404 for a hold id that cannot
 * exist), and nothing changes — neither the hold in Redis nor the bookings in PostgreSQL.
 */
import Redis from 'ioredis';
import { Db, openDb } from '@test/support/db';
import { storeSnapshot } from '@test/support/store-snapshot';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let redis: Redis;
let eventId: string;
let alice: string;
let holdId: string;

beforeAll(async () => {
  api = await startApi({
    HOLD_MIN_TTL_SECONDS: '10',
    HOLD_MAX_TTL_SECONDS: '600',
    HOLD_MAX_SEATS_PER_HOLD: '4',
  });
  db = await openDb();
  redis = new Redis(process.env.REDIS_URL!);
  eventId = await createEvent(api, 1, 10);
  alice = await api.token('alice');
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1', 'S-A-2'] },
  });
  holdId = r.body.holdId;
});
afterAll(async () => {
  await redis?.quit();
  await db?.close();
  await api?.close();
});

const snapshot = () => storeSnapshot(redis, db);

it('a hold without ttlSeconds gets the default ttl (300 s)', async () => {
  const r = await api.call('GET', `/v1/holds/${holdId}`, { token: alice });
  expect(r.body.expiresInSeconds).toBeGreaterThan(290);
  expect(r.body.expiresInSeconds).toBeLessThanOrEqual(300);
});

interface Req {
  method: string;
  path: () => string;
  body: unknown;
  raw?: string;
}
const extend = (body: unknown, raw?: string): Req => ({
  method: 'POST',
  path: () => `/v1/holds/${holdId}/extend`,
  body,
  raw,
});
const confirm = (body: unknown, raw?: string): Req => ({
  method: 'POST',
  path: () => `/v1/holds/${holdId}/confirm`,
  body,
  raw,
});

it.each<[string, number, Req, string[]]>([
  ['extend: no ttlSeconds', 400, extend({}), ['ttlSeconds']],
  ['extend: ttlSeconds as a string', 400, extend({ ttlSeconds: '60' }), ['ttlSeconds']],
  ['extend: ttlSeconds below the deployment minimum', 400, extend({ ttlSeconds: 5 }), ['ttlSeconds']],
  ['extend: ttlSeconds above the deployment maximum', 400, extend({ ttlSeconds: 601 }), ['ttlSeconds']],
  ['extend: an unknown field', 400, extend({ ttlSeconds: 60, userId: 'bob' }), ['userId']],
  [
    'extend: a field named like an inherited member',
    400,
    extend({ ttlSeconds: 60, toString: 1 }),
    ['toString'],
  ],
  ['confirm: a field named prototype', 400, confirm({ orderId: 'o-1', prototype: true }), ['prototype']],
  ['extend: a JSON array', 400, extend([60]), []],
  ['extend: malformed JSON', 400, extend(undefined, '{"ttlSeconds":'), []],
  ['confirm: no orderId', 400, confirm({}), ['orderId']],
  ['confirm: orderId of the wrong type', 400, confirm({ orderId: 42 }), ['orderId']],
  ['confirm: orderId with spaces', 400, confirm({ orderId: 'drop table' }), ['orderId']],
  ['confirm: an unknown field', 400, confirm({ orderId: 'o-1', seatIds: ['S-A-3'] }), ['seatIds']],
  ['confirm: an oversize body', 413, confirm(undefined, JSON.stringify({ orderId: 'x'.repeat(70_000) })), []],
])('%s → %i, nothing changes', async (_name, status, req, fields) => {
  const before = await snapshot();
  const r = await api.call(req.method, req.path(), { token: alice, body: req.body, raw: req.raw });
  expect(r.status).toBe(status);
  expect(r.body).toMatchObject({ statusCode: status, requestId: expect.any(String) });
  expect((r.body.errors ?? []).map((e: { field: string }) => e.field)).toEqual(
    expect.arrayContaining(fields),
  );
  expect(await snapshot()).toBe(before);
});

it('refuses too many seats in one hold with 400 (deployment limit), changing nothing', async () => {
  const before = await snapshot();
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-3', 'S-A-4', 'S-A-5', 'S-A-6', 'S-A-7'] },
  });
  expect(r.status).toBe(400);
  expect(r.body.errors).toEqual([{ field: 'seatIds', message: 'at most 4 seats per hold' }]);
  expect(await snapshot()).toBe(before);
});

it.each([
  ['not a hold id at all', 'nope'],
  ['the right shape for an event that does not exist', `${'0'.repeat(32)}AAAAAAAAAAA`],
  ['an injection attempt', encodeURIComponent("x' OR 1=1 --")],
])('a hold id that is %s is 404 HOLD_NOT_FOUND on every route, changing nothing', async (_name, id) => {
  const before = await snapshot();
  for (const [method, path, body] of [
    ['GET', `/v1/holds/${id}`, undefined],
    ['POST', `/v1/holds/${id}/extend`, { ttlSeconds: 60 }],
    ['DELETE', `/v1/holds/${id}`, undefined],
    ['POST', `/v1/holds/${id}/confirm`, { orderId: 'o-1' }],
  ] as const) {
    const r = await api.call(method, path, { token: alice, body });
    expect([method, r.status, r.body.code]).toEqual([method, 404, 'HOLD_NOT_FOUND']);
  }
  expect(await snapshot()).toBe(before);
});

it('answers an id past the router’s length limit with 414 in the envelope', async () => {
  const r = await api.call('GET', `/v1/holds/${'a'.repeat(2000)}`, {
    token: alice,
    headers: { 'x-request-id': 'long-1' },
  });
  expect(r.status).toBe(414);
  expect(r.body).toEqual({
    statusCode: 414,
    code: 'URI_TOO_LONG',
    message: expect.any(String),
    requestId: 'long-1',
  });
  expect(r.headers.get('x-request-id')).toBe('long-1');
});

it('refuses a malformed event id on POST holds with 400 naming eventId', async () => {
  for (const id of ['123', '00000000-0000-0000-0000-00000000000g', 'S-A-1']) {
    const r = await api.call('POST', `/v1/events/${id}/holds`, {
      token: alice,
      body: { seatIds: ['S-A-3'] },
    });
    expect([r.status, r.body.errors]).toEqual([400, [{ field: 'eventId', message: 'must be a UUID' }]]);
  }
});

it('refuses ttlSeconds: null on a new hold (leave it out for the default), changing nothing', async () => {
  const before = await snapshot();
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-3'], ttlSeconds: null },
  });
  expect(r.status).toBe(400);
  expect(r.body.errors.map((e: { field: string }) => e.field)).toContain('ttlSeconds');
  expect(await snapshot()).toBe(before);
});
