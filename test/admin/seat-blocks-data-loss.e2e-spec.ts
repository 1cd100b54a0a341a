/**
 * Blocked and booked seats after Redis loses its data while the service runs (FLUSHALL of a private
 * redis-server, never the shared one), on two instances that both had the event loaded: PostgreSQL is the
 * record, and no hold on either instance, by seat ids or best available, may take a blocked or booked seat;
 * a confirm never books a seat PostgreSQL lists as blocked. No restart is needed.
 */
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, createEvent, startApi } from '@test/support/seat-api';

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
  eventId = await createEvent(one, 1, 12);
  admin = await one.token('admin-1', ['admin']);
});
afterAll(async () => {
  await one?.close();
  await two?.close();
  await redis?.stop();
});

const statuses = async (api: Api): Promise<Map<string, string>> => {
  const r = await api.call('GET', `/v1/events/${eventId}/seats`);
  return new Map((r.body.seats as { seatId: string; status: string }[]).map((s) => [s.seatId, s.status]));
};

it('keeps blocked and booked seats off sale on every instance, with no restart', async () => {
  const blocked = ['S-A-1', 'S-A-2', 'S-A-3', 'S-A-4', 'S-A-5', 'S-A-6'];
  const r = await one.call('POST', `/v1/events/${eventId}/seats/block`, {
    token: admin,
    body: { seatIds: blocked, reason: 'camera platform' },
  });
  expect(r.status).toBe(200);
  const buyer = await one.token('buyer');
  const held = await one.call('POST', `/v1/events/${eventId}/holds`, {
    token: buyer,
    body: { seatIds: ['S-A-7'] },
  });
  expect(held.status).toBe(201);
  const booked = await one.call('POST', `/v1/holds/${held.body.holdId}/confirm`, {
    token: buyer,
    body: { orderId: 'order-before-loss' },
  });
  expect(booked.status).toBe(201);
  // both instances know the event (its seats, its policy) before Redis loses everything
  expect((await statuses(one)).get('S-A-1')).toBe('BOOKED');
  expect((await statuses(two)).get('S-A-1')).toBe('BOOKED');

  await redis.client.flushall();

  // every way of taking seats, from both instances, over and over: none gets a blocked or booked seat
  const taken: string[] = [];
  for (const [i, api] of [one, two, one, two].entries()) {
    const user = await api.token(`shopper-${i}`);
    for (const seatId of [...blocked, 'S-A-7']) {
      const h = await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: user,
        body: { seatIds: [seatId] },
      });
      expect([seatId, h.status]).toEqual([seatId, 409]);
    }
    const best = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: user,
      body: { bestAvailable: { quantity: 1 } },
    });
    expect(best.status).toBe(201);
    taken.push(...(best.body.seatIds as string[]));
  }
  expect(taken.filter((s) => blocked.includes(s) || s === 'S-A-7')).toEqual([]);
  for (const api of [one, two]) {
    const map = await statuses(api);
    expect([...blocked, 'S-A-7'].map((s) => map.get(s))).toEqual(Array(7).fill('BOOKED'));
  }
});
