/**
 * Repair of Redis from PostgreSQL after Redis lost its data, without a boot that grows with the events
 * stored: the API listens without visiting any stored event, and each event is repaired (entered in its
 * shard's events index, its booked seats BOOKED again) the first time this instance loads it, before that
 * load answers anything. A private redis-server is restarted empty; the shared one is never touched.
 */
import { Client } from 'pg';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { PrivateRedis, startPrivateRedis } from '../support/private-redis';
import { Api, createEvent, startApi } from '../support/seat-api';

jest.setTimeout(120_000);

const STORED_EVENTS = 12;
let redis: PrivateRedis;
let api: Api | undefined;
const prefix = process.env.REDIS_KEY_PREFIX ?? '';

beforeAll(async () => {
  redis = await startPrivateRedis();
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

/** Every event id in the shards' events indexes of the private Redis. */
async function registeredEvents(store: HoldStore): Promise<string[]> {
  const all: string[] = [];
  for (const shard of store.layout.all()) {
    all.push(...(await redis.client.zrange(`${prefix}${store.layout.shardKeys(shard).events}`, 0, -1)));
  }
  return all;
}

it('listens without visiting stored events; an event is repaired from PostgreSQL on its first load', async () => {
  api = await startApi({ REDIS_URL: redis.url });
  const events: string[] = [];
  for (let i = 0; i < STORED_EVENTS; i++) {
    events.push(await createEvent(api, 1, 5));
  }
  const alice = await api.token('alice');
  const bob = await api.token('bob');
  const booked = events[0];
  const h = await api.call('POST', `/v1/events/${booked}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-1'] },
  });
  expect(h.status).toBe(201);
  const c = await api.call('POST', `/v1/holds/${h.body.holdId}/confirm`, {
    token: alice,
    body: { orderId: 'order-boot' },
  });
  expect(c.status).toBe(201);
  await api.close();
  api = undefined;

  // Redis restarts empty (no persistence): every hold-store key is gone, the bookings are in PostgreSQL
  await redis.stop();
  redis = await redis.restart();
  api = await startApi({ REDIS_URL: redis.url });
  const store = api.app.get(HoldStore);
  // listening, and no stored event was read or written on the way: boot cost does not grow with them
  expect(await registeredEvents(store)).toEqual([]);

  // the first read of the event repairs it before answering: its booked seat is BOOKED, never AVAILABLE
  const map = await api.call('GET', `/v1/events/${booked}/seats`, { token: bob });
  expect(map.status).toBe(200);
  const seat = (map.body.seats as { seatId: string; status: string }[]).find((s) => s.seatId === 'S-A-1');
  expect(seat?.status).toBe('BOOKED');
  const again = await api.call('POST', `/v1/events/${booked}/holds`, {
    token: bob,
    body: { seatIds: ['S-A-1'] },
  });
  expect(again.status).toBe(409);
  expect(again.body.errors).toEqual([{ seatId: 'S-A-1', reason: 'BOOKED' }]);
  // and it is registered again, so its keys are removed once it is old; the untouched ones stay unvisited
  expect(await registeredEvents(store)).toEqual([booked]);

  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  try {
    const { rows } = await pg.query(
      `SELECT count(*)::int AS n FROM ${process.env.DATABASE_SCHEMA}.booking_seats WHERE event_id = $1`,
      [booked],
    );
    expect(rows[0].n).toBe(1);
  } finally {
    await pg.end();
  }
});
