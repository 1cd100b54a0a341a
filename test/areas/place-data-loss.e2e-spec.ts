/**
 * An area's counts after Redis loses its data while the service runs (FLUSHALL of a private
 * redis-server, never the shared one), on two instances that both had the event loaded: the places
 * PostgreSQL has booked stay booked, those box office blocked stay blocked, and holds racing on both instances afterwards never take more than
 * the capacity left. No restart is needed.
 */
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, startApi } from '@test/support/seat-api';

jest.setTimeout(90_000);

let redis: PrivateRedis;
let one: Api;
let two: Api;
let eventId: string;
let admin: string;

beforeAll(async () => {
  redis = await startPrivateRedis();
  const env = { REDIS_URL: redis.url, RATE_LIMIT_ENABLED: 'false' };
  one = await startApi(env);
  two = await startApi(env);
  admin = await one.token('admin-1', ['admin']);
  const r = await one.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [{ name: 'FLOOR', category: 'standing', capacity: 20 }],
    },
  });
  expect(r.status).toBe(201);
  eventId = r.body.eventId as string;
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

const floorOf = async (api: Api) =>
  (await api.call('GET', `/v1/events/${eventId}`, { token: admin })).body.areas[0] as Record<string, number>;

it('heals the area from PostgreSQL: no place sold twice, on either instance', async () => {
  const buyer = await one.token('buyer');
  const held = await one.call('POST', `/v1/events/${eventId}/holds`, {
    token: buyer,
    body: { places: [{ area: 'FLOOR', quantity: 5 }] },
  });
  expect(held.status).toBe(201);
  const booked = await one.call('POST', `/v1/holds/${held.body.holdId}/confirm`, {
    token: buyer,
    body: { orderId: 'order-before-loss' },
  });
  expect(booked.status).toBe(201);
  const other = await two.token('other');
  expect(
    (
      await two.call('POST', `/v1/events/${eventId}/holds`, {
        token: other,
        body: { places: [{ area: 'FLOOR', quantity: 3 }] },
      })
    ).status,
  ).toBe(201);
  const block = await one.call('POST', `/v1/events/${eventId}/places/block`, {
    token: admin,
    body: { area: 'FLOOR', quantity: 2, reason: 'mixing desk' },
  });
  expect(block.status).toBe(200);
  expect(await floorOf(two)).toMatchObject({ free: 10, held: 3, booked: 5, blocked: 2 });

  await redis.client.flushall();

  // 40 shoppers on both instances ask for one place each: the 13 places PostgreSQL has neither sold nor
  // blocked, no more
  const results = await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const api = i % 2 === 0 ? one : two;
      const token = await api.token(`shopper-${i}`);
      return api.call('POST', `/v1/events/${eventId}/holds`, {
        token,
        body: { places: [{ area: 'FLOOR', quantity: 1 }] },
      });
    }),
  );
  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(13);
  expect(statuses.filter((s) => s === 409)).toHaveLength(27);
  for (const api of [one, two]) {
    expect(await floorOf(api)).toMatchObject({ capacity: 20, free: 0, held: 13, booked: 5, blocked: 2 });
  }
});
