/** Flash-sale behaviour over real HTTP: one winner per seat, no shared seats, no 500s. */
import Redis from 'ioredis';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

let api: Api;
let eventId: string;

beforeAll(async () => {
  // the default seat-lock wait: contention is answered 409 or waited out, never 503 (see flash-sale.e2e-spec.ts)
  api = await startApi({ HOLD_MAX_SEATS_PER_USER: '100' });
  eventId = await createEvent(api, 2, 20);
});
afterAll(() => api.close());

it('200 concurrent requests for one seat: exactly one 201, the rest 409', async () => {
  const tokens = await Promise.all(Array.from({ length: 200 }, (_, i) => api.token(`fan-${i}`)));
  const results = await Promise.all(
    tokens.map((token) =>
      api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds: ['S-A-1'] } }),
    ),
  );
  const counts = new Map<number, number>();
  for (const r of results) {
    counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  }
  expect(Object.fromEntries(counts)).toEqual({ 201: 1, 409: 199 });
});

it('overlapping multi-seat holds never share a seat', async () => {
  const tokens = await Promise.all(Array.from({ length: 60 }, (_, i) => api.token(`group-${i}`)));
  const seats = Array.from({ length: 20 }, (_, i) => `S-B-${i + 1}`);
  const results = await Promise.all(
    tokens.map((token, i) => {
      const start = i % 18;
      return api.call('POST', `/v1/events/${eventId}/holds`, {
        token,
        body: { seatIds: seats.slice(start, start + 3) },
      });
    }),
  );
  expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
  const won = results.filter((r) => r.status === 201).flatMap((r) => r.body.seatIds as string[]);
  expect(new Set(won).size).toBe(won.length);
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: tokens[0] });
  const held = (map.body.seats as { seatId: string; status: string }[]).filter(
    (s) => s.status === 'HELD' && s.seatId.startsWith('S-B'),
  );
  expect(held.map((s) => s.seatId).sort()).toEqual([...won].sort());
});

describe('bad input', () => {
  let token: string;
  let redis: Redis;
  const snapshot = async () => {
    const keys = (await redis.keys(`${process.env.REDIS_KEY_PREFIX}hold:*`)).sort();
    const values = await Promise.all(keys.map(async (k) => [k, await redis.dump(k)]));
    return JSON.stringify(values);
  };
  beforeAll(async () => {
    token = await api.token('tester');
    redis = testRedisClient();
  });
  afterAll(() => redis.quit());

  it.each([
    ['malformed JSON', { raw: '{"seatIds": [' }, 400, 'MALFORMED_JSON'],
    ['unknown field', { body: { seatIds: ['S-A-2'], userId: 'mallory' } }, 400, 'VALIDATION_FAILED'],
    ['duplicate seat ids', { body: { seatIds: ['S-A-2', 'S-A-2'] } }, 400, 'VALIDATION_FAILED'],
    ['empty seat ids', { body: { seatIds: [] } }, 400, 'VALIDATION_FAILED'],
    ['wrong type', { body: { seatIds: 'S-A-2' } }, 400, 'VALIDATION_FAILED'],
    ['bad seat id', { body: { seatIds: ['S A 2;DROP'] } }, 400, 'VALIDATION_FAILED'],
    ['ttl too long', { body: { seatIds: ['S-A-2'], ttlSeconds: 100000 } }, 400, 'VALIDATION_FAILED'],
    ['ttl below the minimum', { body: { seatIds: ['S-A-2'], ttlSeconds: 5 } }, 400, 'VALIDATION_FAILED'],
    ['ttl not an integer', { body: { seatIds: ['S-A-2'], ttlSeconds: 1.5 } }, 400, 'VALIDATION_FAILED'],
    [
      'oversize body',
      { raw: JSON.stringify({ seatIds: ['S-A-2'], pad: 'x'.repeat(70_000) }) },
      413,
      'PAYLOAD_TOO_LARGE',
    ],
  ])('%s → %s %s, and nothing changes', async (_name, opts, status, code) => {
    const before = await snapshot();
    const r = await api.call('POST', `/v1/events/${eventId}/holds`, { token, ...opts });
    expect(r.status).toBe(status);
    expect(r.body).toMatchObject({ statusCode: status, code, requestId: expect.any(String) });
    expect(await snapshot()).toBe(before);
  });

  it('names the offending fields', async () => {
    const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token,
      body: { seatIds: 'x', extra: 1 },
    });
    const fields = (r.body.errors as { field: string }[]).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['seatIds', 'extra']));
  });

  it('rejects bad ids in the path', async () => {
    expect(
      (await api.call('POST', `/v1/events/nope/holds`, { token, body: { seatIds: ['S-A-2'] } })).status,
    ).toBe(400);
    // a NUL is refused at the edge, wherever it is (PostgreSQL text cannot hold one)
    expect((await api.call('POST', `/v1/holds/%00/extend`, { token, body: { ttlSeconds: 60 } })).status).toBe(
      400,
    );
  });
});
