/**
 * Property-based fuzzing of the REST API (fast-check): thousands of generated requests, each with at
 * least one definite defect (bad token, bad id, bad body, someone else's hold, missing role). Every one
 * must be refused with a 4xx in the error envelope (never a 5xx), and leave Redis and PostgreSQL exactly
 * as they were. A failing case prints fast-check's seed and the shrunk request.
 */
import fc from 'fast-check';
import Redis from 'ioredis';
import { SignJWT } from 'jose';
import { Db, openDb } from '../support/db';
import { storeSnapshot } from '../support/store-snapshot';
import { Api, createEvent, startApi } from '../support/seat-api';

jest.setTimeout(240_000);

let api: Api;
let db: Db;
let redis: Redis;
let eventId: string;
let holdId: string;
let tokens: Record<'alice' | 'bob' | 'admin', string>;

beforeAll(async () => {
  api = await startApi({ HOLD_MAX_SEATS_PER_HOLD: '4' });
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
