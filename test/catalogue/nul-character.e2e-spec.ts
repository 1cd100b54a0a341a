/**
 * The NUL character (U+0000) in any string a request carries: a query parameter, a body string or key, a
 * path parameter. PostgreSQL text cannot hold it, so a NUL that reached the database would fail there: a
 * 500, or for a staff action a 503 AUDIT_UNAVAILABLE saying "try again" that can never succeed. Every
 * one is refused at the edge with 400 VALIDATION_FAILED naming the field, and changes nothing.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { Db, openDb } from '@test/support/db';
import { storeSnapshot } from '@test/support/store-snapshot';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let redis: Redis;
let eventId: string;
let holdId: string;
let alice: string;
let admin: string;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  db = await openDb();
  redis = new Redis(process.env.REDIS_URL!);
  eventId = await createEvent(api, 1, 10);
  alice = await api.token('alice');
  admin = await api.token('root', ['admin']);
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
  });
  expect(r.status).toBe(201);
  holdId = r.body.holdId;
});
afterAll(async () => {
  await redis?.quit();
  await db?.close();
  await api?.close();
});

const layout = (section: string, category: string) => [
  { name: section, category, rows: [{ row: 'A', seats: 2 }] },
];

const NUL = '\u0000';

it.each<[string, string, () => string, unknown, string]>([
  ['a search text', 'GET', () => '/v1/events?q=%00', undefined, 'q'],
  ['a search text with NUL inside', 'GET', () => '/v1/events?q=ab%00cd', undefined, 'q'],
  [
    'an event name',
    'POST',
    () => '/v1/events',
    { name: `Gala${NUL}`, startsAt: '2030-01-01T20:00:00Z', sections: layout('S', 'standard') },
    'name',
  ],
  [
    'a category',
    'POST',
    () => '/v1/events',
    { name: 'Gala', startsAt: '2030-01-01T20:00:00Z', sections: layout('S', `std${NUL}`) },
    'sections.0.category',
  ],
  [
    'a waiting-list category',
    'POST',
    () => `/v1/events/${eventId}/waitlist`,
    { quantity: 1, category: NUL },
    'category',
  ],
  [
    'a force-release reason',
    'POST',
    () => `/v1/holds/${holdId}/force-release`,
    { reason: `fraud${NUL}` },
    'reason',
  ],
  [
    'a block reason',
    'POST',
    () => `/v1/events/${eventId}/seats/block`,
    { seatIds: ['S-A-5'], reason: `kill${NUL}` },
    'reason',
  ],
  [
    'a booking-cancel reason',
    'POST',
    () => `/v1/events/${eventId}/bookings/${randomUUID()}/cancel`,
    { reason: NUL },
    'reason',
  ],
  ['a body key', 'POST', () => `/v1/events/${eventId}/waitlist`, { quantity: 1, [`x${NUL}`]: 1 }, 'x\\u0000'],
  ['a hold id in the path', 'GET', () => '/v1/holds/h%00', undefined, 'holdId'],
  ['an orderId filter', 'GET', () => `/v1/events/${eventId}/bookings?orderId=o%00`, undefined, 'orderId'],
])(
  'refuses NUL in %s with 400 VALIDATION_FAILED naming it, changing nothing',
  async (_what, method, path, body, field) => {
    const before = await storeSnapshot(redis, db);
    const r = await api.call(method, path(), { token: admin, body });
    expect([r.status, r.body]).toEqual([
      400,
      {
        statusCode: 400,
        code: 'VALIDATION_FAILED',
        message: expect.any(String),
        errors: [{ field, message: 'must not contain the NUL character (U+0000)' }],
        requestId: expect.any(String),
      },
    ]);
    expect(await storeSnapshot(redis, db)).toBe(before);
  },
);

it('takes a backslash followed by u0000 as the six characters they are', async () => {
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: { name: 'Gala \\u0000', startsAt: '2030-01-01T20:00:00Z', sections: layout('S', 'standard') },
  });
  expect(r.status).toBe(201);
  const read = await api.call('GET', `/v1/events/${r.body.eventId}`, { token: admin });
  expect(read.body.name).toBe('Gala \\u0000');
});

it('leaves the hold whose force release was refused ACTIVE, and the audit empty', async () => {
  await api.call('POST', `/v1/holds/${holdId}/force-release`, { token: admin, body: { reason: NUL } });
  const hold = await api.call('GET', `/v1/holds/${holdId}`, { token: alice });
  expect(hold.body.status).toBe('ACTIVE');
  const audit = await api.call('GET', `/v1/events/${eventId}/audit`, { token: admin });
  expect([audit.status, audit.body.total]).toEqual([200, 0]);
});
