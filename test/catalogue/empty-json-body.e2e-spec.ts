/**
 * `Content-Type: application/json` with no body. Many HTTP clients set that header on every request, so a
 * route that takes no body (release, leave the waiting list, close sales, cancel an event) answers as it
 * does without the header; a route that takes a body still refuses an empty one with 400 MALFORMED_JSON
 * and changes nothing.
 */
import Redis from 'ioredis';
import { Db, openDb } from '@test/support/db';
import { storeSnapshot } from '@test/support/store-snapshot';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let redis: Redis;
let alice: string;
let admin: string;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  db = await openDb();
  redis = new Redis(process.env.REDIS_URL!);
  alice = await api.token('alice');
  admin = await api.token('root', ['admin']);
});
afterAll(async () => {
  await redis?.quit();
  await db?.close();
  await api?.close();
});

/** The two ways a client sends "JSON, no body": no body at all, or Content-Length: 0. */
const EMPTY = [
  ['no body', {}],
  ['Content-Length: 0', { raw: '' }],
] as const;
const JSON_HEADER = { 'content-type': 'application/json' };

async function holdOf(eventId: string, seat: string): Promise<string> {
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: [seat] },
  });
  expect(r.status).toBe(201);
  return r.body.holdId as string;
}

describe.each(EMPTY)('a body-less route sent Content-Type: application/json and %s', (_how, empty) => {
  const send = (method: string, path: string, token: string) =>
    api.call(method, path, { token, headers: JSON_HEADER, ...empty });

  it('releases a hold: 204, the seat available again', async () => {
    const eventId = await createEvent(api, 1, 4);
    const holdId = await holdOf(eventId, 'S-A-1');
    const r = await send('DELETE', `/v1/holds/${holdId}`, alice);
    expect([r.status, r.body]).toEqual([204, undefined]);
    const read = await api.call('GET', `/v1/holds/${holdId}`, { token: alice });
    expect(read.body.status).toBe('RELEASED');
  });

  it('leaves the waiting list: 204, the entry LEFT', async () => {
    const eventId = await createEvent(api, 1, 4);
    const joined = await api.call('POST', `/v1/events/${eventId}/waitlist`, {
      token: alice,
      body: { quantity: 1 },
    });
    expect(joined.status).toBe(201);
    const r = await send('DELETE', `/v1/waitlist/${joined.body.entryId}`, alice);
    expect([r.status, r.body]).toEqual([204, undefined]);
    const read = await api.call('GET', `/v1/waitlist/${joined.body.entryId}`, { token: alice });
    expect(read.body.status).toBe('LEFT');
  });

  it('closes and opens sales: 200 with the settings', async () => {
    const eventId = await createEvent(api, 1, 4);
    const closed = await send('POST', `/v1/events/${eventId}/sales/close`, admin);
    expect([closed.status, closed.body.sales]).toEqual([200, 'CLOSED']);
    const opened = await send('POST', `/v1/events/${eventId}/sales/open`, admin);
    expect([opened.status, opened.body.sales]).toEqual([200, 'OPEN']);
  });

  it('cancels an event: 200, its live hold released', async () => {
    const eventId = await createEvent(api, 1, 4);
    await holdOf(eventId, 'S-A-2');
    const r = await send('POST', `/v1/events/${eventId}/cancel`, admin);
    expect([r.status, r.body.sales, r.body.releasedHolds]).toEqual([200, 'CANCELLED', 1]);
  });
});

describe.each(EMPTY)(
  'a route that takes a body, sent Content-Type: application/json and %s',
  (_how, empty) => {
    it.each([
      ['hold', 'POST', (e: string) => `/v1/events/${e}/holds`],
      ['join the waiting list', 'POST', (e: string) => `/v1/events/${e}/waitlist`],
      ['change settings', 'PATCH', (e: string) => `/v1/events/${e}`],
      ['block seats', 'POST', (e: string) => `/v1/events/${e}/seats/block`],
      ['create an event', 'POST', () => '/v1/events'],
    ])('refuses %s with 400 MALFORMED_JSON and changes nothing', async (_what, method, path) => {
      const eventId = await createEvent(api, 1, 4);
      const before = await storeSnapshot(redis, db);
      const r = await api.call(method, path(eventId), { token: admin, headers: JSON_HEADER, ...empty });
      expect([r.status, r.body]).toEqual([
        400,
        {
          statusCode: 400,
          code: 'MALFORMED_JSON',
          message: expect.stringContaining('empty'),
          requestId: expect.any(String),
        },
      ]);
      expect(await storeSnapshot(redis, db)).toBe(before);
    });

    it('refuses extend and confirm of a hold with 400 MALFORMED_JSON, the hold unchanged', async () => {
      const eventId = await createEvent(api, 1, 4);
      const holdId = await holdOf(eventId, 'S-A-3');
      const before = await api.call('GET', `/v1/holds/${holdId}`, { token: alice });
      for (const action of ['extend', 'confirm']) {
        const r = await api.call('POST', `/v1/holds/${holdId}/${action}`, {
          token: alice,
          headers: JSON_HEADER,
          ...empty,
        });
        expect([action, r.status, r.body.code]).toEqual([action, 400, 'MALFORMED_JSON']);
      }
      const after = await api.call('GET', `/v1/holds/${holdId}`, { token: alice });
      expect(after.body).toEqual(before.body);
    });
  },
);
