/**
 * One clock decides when an event has ended: Redis's. An instance whose own clock is behind (here: an
 * event whose retention ends by Redis TIME while the instance's clock, and its config, say it has years
 * left) cannot hold seats once the event's keys were deleted, and nothing it does re-creates them: the
 * hold script refuses EVENT_ENDED itself, and the deleted event leaves a tombstone in its shard.
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
let pg: Client;
const schema = process.env.DATABASE_SCHEMA;

beforeAll(async () => {
  api = await startApi({ SWEEPER_ENABLED: 'true', SWEEP_INTERVAL_MS: '100' });
  pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
});
afterAll(async () => {
  await api?.close();
  await pg?.end();
});

/** A booking of `seatId` in PostgreSQL, as a committed confirm leaves it. */
async function bookInPostgres(eventId: string, seatId: string): Promise<void> {
  const id = randomUUID();
  await pg.query(
    `INSERT INTO ${schema}.bookings (id, hold_id, order_id, event_id, user_id, status, fencing_token, seat_ids)
     VALUES ($1, $2, 'order-1', $3, 'alice', 'CONFIRMED', 1, $4)`,
    [id, `h-${id}`, eventId, [seatId]],
  );
  await pg.query(`INSERT INTO ${schema}.booking_seats (event_id, seat_id, booking_id) VALUES ($1, $2, $3)`, [
    eventId,
    seatId,
    id,
  ]);
}

/** Ends the event's retention now by Redis's clock: its retain-until in its shard's events index. */
async function endRetentionByRedisTime(eventId: string): Promise<string> {
  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const store = api.app.get(HoldStore);
  const events = store.layout.shardKeys(store.layout.shardOf(eventId)).events;
  const [sec, usec] = await redis.time();
  await redis.zadd(events, Number(sec) * 1000 + Math.floor(Number(usec) / 1000), eventId);
  // as registering the event does: its shard's sweep is due then
  await redis.zadd(
    WAKE_KEY,
    'LT',
    Number(sec) * 1000 + Math.floor(Number(usec) / 1000),
    store.layout.shardOf(eventId),
  );
  return events;
}

/** The event's hold-store keys that exist in Redis. */
async function keysOf(eventId: string): Promise<string[]> {
  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const keys = Object.values(api.app.get(HoldStore).layout.eventKeys(eventId));
  const exists = await Promise.all(keys.map((k) => redis.exists(k)));
  return keys.filter((_k, i) => exists[i] === 1);
}

it('a hold on an event whose keys were deleted is refused 409 EVENT_ENDED, whatever the instance clock says, and re-creates no key', async () => {
  const eventId = await createEvent(api, 1, 5); // starts in 2030: live for years by the instance's clock
  await bookInPostgres(eventId, 'S-A-1');
  const redis = api.app.get<Redis>(REDIS_CLIENT);
  const events = await endRetentionByRedisTime(eventId);
  // the sweeper deletes the event's keys: nothing is live, nothing ended is kept
  await eventually(async () => (await redis.zscore(events, eventId)) === null, 10_000, 'event removed');

  const alice = await api.token('alice');
  for (const seatId of ['S-A-1', 'S-A-2']) {
    const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seatIds: [seatId] },
    });
    expect([seatId, r.status, r.body.code]).toEqual([seatId, 409, 'EVENT_ENDED']);
  }
  expect(await keysOf(eventId)).toEqual([]);
});
