/**
 * An event's keys outlive its retention while anything of it must still be read: an ended hold stays
 * readable HOLD_RETENTION_SECONDS after it ended (the promise GET /v1/holds/{id} makes), and the seat map
 * shows its booked seats BOOKED. Once the keys are gone, the event's seat map is refused (409 EVENT_ENDED):
 * a booked seat never reads AVAILABLE. The event's retention is ended by Redis's clock (its retain-until
 * in its shard's events index), with the sweeper running.
 */
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { REDIS_CLIENT } from '@app/redis';
import { HoldStore, WAKE_KEY } from '../../apps/seat-api/src/hold-store';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';

jest.setTimeout(60_000);

let api: Api;

beforeAll(async () => {
  api = await startApi({ SWEEPER_ENABLED: 'true', SWEEP_INTERVAL_MS: '100' });
});
afterAll(() => api?.close());

/** Ends the event's retention now by Redis's clock; returns its events index key and the score set. */
async function endRetentionByRedisTime(eventId: string): Promise<{ events: string; at: string }> {
  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const store = api.app.get(HoldStore);
  const events = store.layout.shardKeys(store.layout.shardOf(eventId)).events;
  const [sec, usec] = await redis.time();
  const at = String(Number(sec) * 1000 + Math.floor(Number(usec) / 1000));
  await redis.zadd(events, at, eventId);
  // as registering the event does: its shard's sweep is due then
  await redis.zadd(WAKE_KEY, 'LT', at, store.layout.shardOf(eventId));
  return { events, at };
}

const seatStatus = async (eventId: string, seatId: string, token: string) => {
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token });
  return map.status === 200
    ? (map.body.seats as { seatId: string; status: string }[]).find((s) => s.seatId === seatId)?.status
    : `${map.status} ${map.body.code}`;
};

it('past its retention, an event with ended holds keeps its keys: the holds stay readable, its booked seat BOOKED', async () => {
  const eventId = await createEvent(api, 1, 5);
  const alice = await api.token('alice');
  const bob = await api.token('bob');
  const booked = (
    await api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds: ['S-A-1'] } })
  ).body;
  expect(
    (await api.call('POST', `/v1/holds/${booked.holdId}/confirm`, { token: alice, body: { orderId: 'o-1' } }))
      .status,
  ).toBe(201);
  const released = (
    await api.call('POST', `/v1/events/${eventId}/holds`, { token: bob, body: { seatIds: ['S-A-2'] } })
  ).body;
  expect((await api.call('DELETE', `/v1/holds/${released.holdId}`, { token: bob })).status).toBe(204);

  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const { events, at } = await endRetentionByRedisTime(eventId);
  await eventually(
    async () => (await redis.zscore(events, eventId)) !== at,
    10_000,
    'the sweep looked at it',
  );

  const read = await api.call('GET', `/v1/holds/${released.holdId}`, { token: bob });
  expect([read.status, read.body.status]).toEqual([200, 'RELEASED']);
  expect(await seatStatus(eventId, 'S-A-1', bob)).toBe('BOOKED');
});

it('past its retention an event takes no hold, however long its ended holds are still kept', async () => {
  const eventId = await createEvent(api, 1, 5);
  const bob = await api.token('bob');
  const released = (
    await api.call('POST', `/v1/events/${eventId}/holds`, { token: bob, body: { seatIds: ['S-A-1'] } })
  ).body;
  expect((await api.call('DELETE', `/v1/holds/${released.holdId}`, { token: bob })).status).toBe(204);

  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const { events, at } = await endRetentionByRedisTime(eventId);
  // the sweep finds the ended hold still kept and looks at the event again later
  await eventually(
    async () => (await redis.zscore(events, eventId)) !== at,
    10_000,
    'the sweep looked at it',
  );
  for (const body of [{ seatIds: ['S-A-2'] }, { bestAvailable: { quantity: 1 } }]) {
    const late = await api.call('POST', `/v1/events/${eventId}/holds`, { token: bob, body });
    expect([late.status, late.body.code]).toEqual([409, 'EVENT_ENDED']);
  }
  // and nothing of the refused holds put the event's removal off: it is looked at when its kept hold goes
  const read = await api.call('GET', `/v1/holds/${released.holdId}`, { token: bob });
  expect([read.status, read.body.status]).toEqual([200, 'RELEASED']);
});

it('once an event’s keys are removed, its seat map is refused 409 EVENT_ENDED, never a booked seat AVAILABLE', async () => {
  const eventId = await createEvent(api, 1, 5);
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
  try {
    const id = randomUUID();
    const schema = process.env.DATABASE_SCHEMA;
    await pg.query(
      `INSERT INTO ${schema}.bookings (id, hold_id, order_id, event_id, user_id, status, fencing_token, seat_ids)
       VALUES ($1, $2, 'order-1', $3, 'alice', 'CONFIRMED', 1, $4)`,
      [id, `h-${id}`, eventId, ['S-A-1']],
    );
    await pg.query(
      `INSERT INTO ${schema}.booking_seats (event_id, seat_id, booking_id) VALUES ($1, $2, $3)`,
      [eventId, 'S-A-1', id],
    );
  } finally {
    await pg.end();
  }
  const bob = await api.token('bob');
  // this instance loads the event (its booked seat is repaired into Redis) without making a hold
  const refused = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: bob,
    body: { seatIds: ['S-A-1'] },
  });
  expect(refused.body.errors).toEqual([{ seatId: 'S-A-1', reason: 'BOOKED' }]);

  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const { events } = await endRetentionByRedisTime(eventId);
  await eventually(async () => (await redis.zscore(events, eventId)) === null, 10_000, 'event removed');
  expect(await seatStatus(eventId, 'S-A-1', bob)).toBe('409 EVENT_ENDED');
});
