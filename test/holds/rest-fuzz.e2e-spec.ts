/**
 * Property-based fuzzing of the REST API (fast-check): thousands of generated requests, each with at
 * least one definite defect (bad token, bad id, bad body, someone else's hold, missing role). Every one
 * must be refused with a 4xx in the error envelope (never a 5xx), and leave Redis and PostgreSQL exactly
 * as they were. A failing case prints fast-check's seed and the shrunk request.
 */
import fc from 'fast-check';
import Redis from 'ioredis';
import { SignJWT } from 'jose';
import { Db, openDb } from '@test/support/db';
import { eventually } from '@test/support/eventually';
import { storeSnapshot } from '@test/support/store-snapshot';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(240_000);

let api: Api;
let db: Db;
let redis: Redis;
let eventId: string;
let holdId: string;
let tokens: Record<'alice' | 'bob' | 'admin', string>;

beforeAll(async () => {
  // every request must reach the parser and validation: rate limits have their own tests
  api = await startApi({ HOLD_MAX_SEATS_PER_HOLD: '4', RATE_LIMIT_ENABLED: 'false' });
  db = await openDb();
  redis = new Redis(process.env.REDIS_URL!);
  eventId = await createEvent(api, 1, 10);
  tokens = {
    alice: await api.token('alice'),
    bob: await api.token('bob'),
    admin: await api.token('root', ['admin']),
  };
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: tokens.alice,
    body: { seatIds: ['S-A-1', 'S-A-2'] },
  });
  holdId = r.body.holdId;
  // The hold's follow-up write (the sweeper's wake-up, sent after its script) lands before the first
  // snapshot: the tests compare what the refused requests leave, not that write.
  let last = '';
  await eventually(
    async () => {
      const now = await snapshot();
      const settled = now === last;
      last = now;
      return settled;
    },
    10_000,
    'the store at rest after the setup hold',
  );
});
afterAll(async () => {
  await redis?.quit();
  await db?.close();
  await api?.close();
});

const snapshot = () => storeSnapshot(redis, db);

// ---- arbitraries: pieces that are always wrong --------------------------------------------------------

/** A string that is never a valid seat id (1-32 of letters, digits, . _ -). */
const badSeatId = fc.oneof(
  fc.constant(''),
  fc.string({ minLength: 33, maxLength: 80 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom(' ', '/', '"', '\\', 'é', '😀', '\u0000', '{', '%'))
    .map(([a, b]) => a + b),
);
const notAnInt = fc.oneof(
  fc.double({ noInteger: true, noNaN: true }),
  fc.string(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.integer({ max: 0 }),
  fc.integer({ min: 86_401 }),
);
const unknownField = fc
  .string({ minLength: 1, maxLength: 12 })
  .filter((k) => !['seatIds', 'ttlSeconds', 'orderId', '__proto__'].includes(k));
const notAUuid = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !/^[0-9a-f-]{36}$/i.test(s));
const notAHoldId = fc.string({ minLength: 1, maxLength: 60 });
const notJson = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});
const seatIds = fc.uniqueArray(fc.constantFrom('S-A-3', 'S-A-4', 'S-A-5', 'S-A-6'), {
  minLength: 1,
  maxLength: 4,
});

/** A hold body with one defect at least. */
const badHoldBody = fc.oneof(
  fc.record({ seatIds: fc.tuple(seatIds, badSeatId).map(([ok, bad]) => [...ok, bad]) }),
  fc.record({
    seatIds: fc.oneof(fc.constant([]), fc.string(), fc.integer(), fc.dictionary(fc.string(), fc.string())),
  }),
  fc.record({ seatIds: seatIds.map((s) => [...s, s[0]]) }), // a seat twice
  fc.record({ seatIds, ttlSeconds: notAnInt }),
  fc.tuple(seatIds, unknownField, fc.jsonValue()).map(([s, k, v]) => ({ seatIds: s, [k]: v })),
  fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)),
);

interface Case {
  what: string;
  method: string;
  path: string;
  token?: string;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

const routes = (): [string, (id: string) => string, unknown][] => [
  ['GET', (id) => `/v1/holds/${id}`, undefined],
  ['POST', (id) => `/v1/holds/${id}/extend`, { ttlSeconds: 60 }],
  ['DELETE', (id) => `/v1/holds/${id}`, undefined],
  ['POST', (id) => `/v1/holds/${id}/confirm`, { orderId: 'o-1' }],
];

const badToken = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 60 }),
  fc.constant('eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.'), // alg none
  fc.constantFrom('other-secret', 'expired'), // made into real JWTs by tokenFor
);

async function tokenFor(kind: string | undefined): Promise<string | undefined> {
  if (kind === 'other-secret') {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('another-secret-0123456789'));
  }
  if (kind === 'expired') {
    return new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(process.env.AUTH_JWT_SECRET));
  }
  return kind;
}

/** Each generator yields a request that must be refused, and says why. */
const cases = (): fc.Arbitrary<() => Case | Promise<Case>> =>
  fc.oneof(
    // no usable token, any route
    fc.tuple(badToken, fc.integer({ min: 0, max: 4 })).map(([kind, r]) => async () => {
      const token = await tokenFor(kind);
      if (r === 4) {
        return {
          what: 'bad token, hold',
          method: 'POST',
          path: `/v1/events/${eventId}/holds`,
          token,
          body: { seatIds: ['S-A-3'] },
        };
      }
      const [method, path, body] = routes()[r];
      return { what: 'bad token', method, path: path(holdId), token, body };
    }),
    // a hold body with a defect
    badHoldBody.map((body) => () => ({
      what: 'bad hold body',
      method: 'POST',
      path: `/v1/events/${eventId}/holds`,
      token: tokens.alice,
      body,
    })),
    // a body that is not JSON, or not declared as JSON
    fc
      .tuple(
        notJson,
        fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
        ),
      )
      .map(([raw, type]) => () => ({
        what: 'not JSON',
        method: 'POST',
        path: `/v1/events/${eventId}/holds`,
        token: tokens.alice,
        raw,
        headers: { 'content-type': type },
      })),
    // an event id that is not a UUID
    fc.tuple(notAUuid, fc.boolean()).map(([id, read]) => () => ({
      what: 'bad event id',
      method: read ? 'GET' : 'POST',
      path: `/v1/events/${encodeURIComponent(id)}/${read ? 'seats' : 'holds'}`,
      token: tokens.alice,
      body: read ? undefined : { seatIds: ['S-A-3'] },
    })),
    // a hold id that is not one, on every hold route
    fc.tuple(notAHoldId, fc.integer({ min: 0, max: 3 })).map(([id, r]) => () => {
      const [method, path, body] = routes()[r];
      return { what: 'bad hold id', method, path: path(encodeURIComponent(id)), token: tokens.alice, body };
    }),
    // alice's real hold, touched by bob
    fc.integer({ min: 0, max: 3 }).map((r) => () => {
      const [method, path, body] = routes()[r];
      return { what: "someone else's hold", method, path: path(holdId), token: tokens.bob, body };
    }),
    // alice's own hold, with a bad extend or confirm body
    fc
      .oneof(
        notAnInt.map((ttlSeconds) => ({ path: 'extend', body: { ttlSeconds } })),
        fc
          .tuple(fc.integer({ min: 1, max: 600 }), unknownField, fc.jsonValue())
          .map(([t, k, v]) => ({ path: 'extend', body: { ttlSeconds: t, [k]: v } })),
        fc
          .oneof(badSeatId, fc.integer(), fc.constant(null), fc.string({ minLength: 101, maxLength: 120 }))
          .map((orderId) => ({ path: 'confirm', body: { orderId } })),
        fc
          .tuple(unknownField, fc.jsonValue())
          .map(([k, v]) => ({ path: 'confirm', body: { orderId: 'o-1', [k]: v } })),
      )
      .map(({ path, body }) => () => ({
        what: `bad ${path} body`,
        method: 'POST',
        path: `/v1/holds/${holdId}/${path}`,
        token: tokens.alice,
        body,
      })),
    // creating an event: without the admin role, or with a broken body
    fc.tuple(fc.boolean(), fc.jsonValue()).map(([admin, body]) => () => ({
      what: admin ? 'bad event body' : 'event without admin role',
      method: 'POST',
      path: '/v1/events',
      token: admin ? tokens.admin : tokens.alice,
      body: admin
        ? { sections: [], junk: body }
        : {
            name: 'x',
            startsAt: '2030-01-01T00:00:00Z',
            sections: [{ name: 'S', category: 'c', rows: [{ row: 'A', seats: 1 }] }],
          },
    })),
  );

it('refuses every generated bad request with a 4xx envelope and changes nothing', async () => {
  const before = await snapshot();
  const seen: Record<string, number> = {};
  await fc.assert(
    fc.asyncProperty(cases(), async (make) => {
      const c = await make();
      const r = await api.call(c.method, c.path, {
        token: c.token,
        body: c.body,
        raw: c.raw,
        headers: c.headers,
      });
      seen[`${c.what} → ${r.status}`] = (seen[`${c.what} → ${r.status}`] ?? 0) + 1;
      // the whole case is in the object, so a failure shows the request and the answer
      if (!(r.status >= 400 && r.status < 500)) {
        throw new Error(
          `not refused: ${JSON.stringify({ ...c, token: c.token?.slice(0, 12), answer: r.status, answerBody: r.body })}`,
        );
      }
      expect(r.body).toMatchObject({ statusCode: r.status, requestId: expect.any(String) });
      if ((await snapshot()) !== before) {
        throw new Error(
          `changed state: ${JSON.stringify({ ...c, token: c.token?.slice(0, 12), answer: r.status, answerBody: r.body })}`,
        );
      }
    }),
    // no shrinking: once a request changed state, every later run would fail too and hide the first one
    { numRuns: 3000, endOnFailure: true },
  );
  // every kind of defect was generated, so the property really covered them
  const kinds = new Set(Object.keys(seen).map((k) => k.split(' → ')[0]));
  expect(kinds.size).toBeGreaterThanOrEqual(10);
  console.log(
    `fuzz: 3000 refused requests\n${Object.entries(seen)
      .sort()
      .map(([k, n]) => `  ${k}: ${n}`)
      .join('\n')}`,
  );
});

// ---- the parser's edges: depth, numbers JavaScript cannot hold, long strings, repeated keys ----------

/** `depth` arrays inside each other around `inner`. */
const nestedArrays = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth);
/** `depth` objects inside each other, each under key `k`, around `inner`. */
const nestedObjects = (depth: number, inner = '1') => '{"k":'.repeat(depth) + inner + '}'.repeat(depth);

interface RawCase {
  what: string;
  method: string;
  path: () => string;
  raw: string;
  token?: () => string;
  /** the answer expected; 400 when left out */
  status?: number;
}

const hold = () => `/v1/events/${eventId}/holds`;
const extend = () => `/v1/holds/${holdId}/extend`;
const confirm = () => `/v1/holds/${holdId}/confirm`;
const eventBody = (seats: string, extra = '') =>
  `{"name":"x","startsAt":"2030-01-01T00:00:00Z","sections":[{"name":"S","category":"c","rows":[{"row":"A","seats":${seats}}]${extra}}]}`;

/**
 * Every one must be refused with a 4xx envelope and change nothing. Duplicate keys are refused even when
 * each value alone would be valid: JSON leaves their meaning open (RFC 8259 §4), and a body that one
 * parser reads as "first wins" and another as "last wins" must not reach a decision.
 */
const edgeCases: RawCase[] = [
  // nesting: refused before anything walks the value recursively
  { what: 'arrays 2,000 deep as the body', method: 'POST', path: hold, raw: nestedArrays(2000) },
  {
    what: 'arrays 2,000 deep in seatIds',
    method: 'POST',
    path: hold,
    raw: `{"seatIds":${nestedArrays(2000)}}`,
  },
  { what: 'objects 5,000 deep as the body', method: 'POST', path: hold, raw: nestedObjects(5000) },
  {
    what: 'objects 5,000 deep in ttlSeconds',
    method: 'POST',
    path: extend,
    raw: `{"ttlSeconds":${nestedObjects(5000)}}`,
  },
  { what: 'objects 5,000 deep, confirm', method: 'POST', path: confirm, raw: nestedObjects(5000) },
  {
    what: 'arrays 2,000 deep in an event layout',
    method: 'POST',
    path: () => '/v1/events',
    raw: eventBody(nestedArrays(2000, '1')),
    token: () => tokens.admin,
  },
  {
    what: 'arrays and objects mixed, 3,000 deep',
    method: 'POST',
    path: hold,
    raw: nestedArrays(1500, nestedObjects(1500)),
  },
  {
    what: 'objects 40 deep (over the limit)',
    method: 'POST',
    path: hold,
    raw: `{"seatIds":["S-A-3"],"x":${nestedObjects(40)}}`,
  },
  // numbers: JSON allows them, JavaScript rounds them; none is a valid ttl, seat count or id
  {
    what: 'ttl 1e400 (Infinity)',
    method: 'POST',
    path: hold,
    raw: '{"seatIds":["S-A-3"],"ttlSeconds":1e400}',
  },
  { what: 'ttl -1e400', method: 'POST', path: extend, raw: '{"ttlSeconds":-1e400}' },
  {
    what: 'ttl 2**64',
    method: 'POST',
    path: hold,
    raw: '{"seatIds":["S-A-3"],"ttlSeconds":18446744073709551616}',
  },
  { what: 'ttl -0', method: 'POST', path: extend, raw: '{"ttlSeconds":-0}' },
  { what: 'ttl 1e-400 (0)', method: 'POST', path: extend, raw: '{"ttlSeconds":1e-400}' },
  {
    what: 'ttl 60.0000000000000001e400 (Infinity, written as a near-60 mantissa)',
    method: 'POST',
    path: extend,
    raw: '{"ttlSeconds":60.0000000000000001e400}',
  },
  { what: 'seat id 1e400', method: 'POST', path: hold, raw: '{"seatIds":[1e400]}' },
  { what: 'orderId 2**64', method: 'POST', path: confirm, raw: '{"orderId":18446744073709551616}' },
  {
    what: 'seats per row 1e400',
    method: 'POST',
    path: () => '/v1/events',
    raw: eventBody('1e400'),
    token: () => tokens.admin,
  },
  {
    what: 'seats per row 2**64',
    method: 'POST',
    path: () => '/v1/events',
    raw: eventBody('18446744073709551616'),
    token: () => tokens.admin,
  },
  // long strings: within the body limit they fail validation, beyond it the limit (413)
  { what: 'a 60,000-char seat id', method: 'POST', path: hold, raw: `{"seatIds":["${'A'.repeat(60_000)}"]}` },
  {
    what: 'a 60,000-char orderId',
    method: 'POST',
    path: confirm,
    raw: `{"orderId":"${'o'.repeat(60_000)}"}`,
  },
  {
    what: 'a 60,000-char key',
    method: 'POST',
    path: extend,
    raw: `{"ttlSeconds":60,"${'k'.repeat(60_000)}":1}`,
  },
  {
    what: 'a string over the body limit',
    method: 'POST',
    path: hold,
    raw: `{"seatIds":["${'A'.repeat(200_000)}"]}`,
    status: 413,
  },
  // duplicate keys, valid values included
  { what: 'seatIds twice', method: 'POST', path: hold, raw: '{"seatIds":["S-A-3"],"seatIds":["S-A-3"]}' },
  {
    what: 'seatIds twice, last bad',
    method: 'POST',
    path: hold,
    raw: '{"seatIds":["S-A-3"],"seatIds":["no such"]}',
  },
  { what: 'ttlSeconds twice', method: 'POST', path: extend, raw: '{"ttlSeconds":60,"ttlSeconds":120}' },
  { what: 'orderId twice', method: 'POST', path: confirm, raw: '{"orderId":"o-1","orderId":"o-2"}' },
  {
    what: 'a key twice, one escaped',
    method: 'POST',
    path: extend,
    raw: '{"ttlSeconds":60,"ttl\\u0053econds":60}',
  },
  {
    what: 'a nested key twice',
    method: 'POST',
    path: () => '/v1/events',
    raw: eventBody('1', ',"name":"T"'),
    token: () => tokens.admin,
  },
];

it.each(edgeCases.map((c) => [c.what, c] as const))(
  'refuses %s with a 4xx envelope and changes nothing',
  async (_what, c) => {
    const before = await snapshot();
    const r = await api.call(c.method, c.path(), { token: c.token?.() ?? tokens.alice, raw: c.raw });
    expect({ status: r.status, body: r.body }).toMatchObject({
      status: c.status ?? 400,
      body: { statusCode: c.status ?? 400, code: expect.any(String), requestId: expect.any(String) },
    });
    expect(await snapshot()).toBe(before);
  },
);

it('refuses generated deep nesting and repeated keys anywhere in a body, changing nothing', async () => {
  const before = await snapshot();
  const deep = fc
    .tuple(fc.integer({ min: 33, max: 6000 }), fc.boolean(), fc.constantFrom('seatIds', 'ttlSeconds', 'x'))
    .map(([depth, arrays, key]) => {
      const value = arrays ? nestedArrays(depth, '1') : nestedObjects(depth);
      return `{"seatIds":["S-A-3"],"${key}":${value}}`.replace('"seatIds":["S-A-3"],"seatIds"', '"seatIds"');
    });
  const repeated = fc
    .tuple(fc.constantFrom('seatIds', 'ttlSeconds'), fc.integer({ min: 30, max: 600 }))
    .map(([key, ttl]) =>
      key === 'seatIds'
        ? `{"seatIds":["S-A-3"],"ttlSeconds":${ttl},"seatIds":["S-A-4"]}`
        : `{"ttlSeconds":${ttl},"seatIds":["S-A-3"],"ttlSeconds":${ttl}}`,
    );
  await fc.assert(
    fc.asyncProperty(fc.oneof(deep, repeated), async (raw) => {
      const r = await api.call('POST', hold(), { token: tokens.alice, raw });
      if (r.status !== 400 || r.body?.statusCode !== 400 || typeof r.body?.requestId !== 'string') {
        throw new Error(`not refused: ${raw.slice(0, 80)}… -> ${r.status} ${JSON.stringify(r.body)}`);
      }
    }),
    { numRuns: 150, endOnFailure: true },
  );
  expect(await snapshot()).toBe(before);
});
