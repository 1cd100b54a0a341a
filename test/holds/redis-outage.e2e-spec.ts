/**
 * Redis down: every hold route answers 503 DEPENDENCY_UNAVAILABLE with Retry-After in the envelope
 * (never a 500, never a hang), and the service recovers by itself when Redis is back.
 */
import { eventually } from '@test/support/eventually';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let redis: PrivateRedis;
let api: Api;
let eventId: string;
let alice: string;
let holdId: string;

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startApi({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '500' });
  eventId = await createEvent(api, 1, 10);
  alice = await api.token('alice');
  const h = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
  });
  expect(h.status).toBe(201);
  holdId = h.body.holdId;
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

it('answers 503 DEPENDENCY_UNAVAILABLE + Retry-After on every route while Redis is down, then recovers', async () => {
  await redis.stop();
  const calls = [
    ['GET', `/v1/events/${eventId}/seats`, undefined, {}],
    ['POST', `/v1/events/${eventId}/holds`, { seatIds: ['S-A-2'] }, {}],
    ['POST', `/v1/events/${eventId}/holds`, { seatIds: ['S-A-2'] }, { 'idempotency-key': 'k-down' }],
    ['GET', `/v1/holds/${holdId}`, undefined, {}],
    ['POST', `/v1/holds/${holdId}/extend`, { ttlSeconds: 60 }, {}],
    ['DELETE', `/v1/holds/${holdId}`, undefined, {}],
    ['POST', `/v1/holds/${holdId}/confirm`, { orderId: 'o-1' }, {}],
  ] as const;
  for (const [method, path, body, headers] of calls) {
    const started = Date.now();
    const r = await api.call(method, path, { token: alice, body, headers });
    expect([method, path, r.status, r.body.code]).toEqual([method, path, 503, 'DEPENDENCY_UNAVAILABLE']);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(r.body.requestId).toEqual(expect.any(String));
    expect(Date.now() - started).toBeLessThan(3000); // fails fast, no hanging request
  }

  redis = await redis.restart(); // an empty Redis on the same port
  await eventually(
    async () =>
      (await api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds: ['S-A-3'] } }))
        .status === 201,
    10_000,
    'holds work again after Redis came back',
  );
  // the key used during the outage was never stored: it works now
  const again = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-2'] },
    headers: { 'idempotency-key': 'k-down' },
  });
  expect(again.status).toBe(201);
});
