/**
 * Every write inside a script is a command Redis propagates on its own (the AOF, every replica), so the
 * hold scripts write each key once per call where they can. On a private Redis (its command counters see
 * only this file):
 * - the shard sweep batches one event's writes (lua/write-batch.lua batch_begin / batch_flush): expiring 91 holds of
 *   one event writes the seats hash, each bucket, the user index and the gc index once each, plus one
 *   outbox record per seat, and leaves exactly the state the unbatched writes left;
 * - a hold's seats are written by one HSET (set_seats), and the event's counters (version, held, booked,
 *   records) by one HSET at the end of the call (change-tracking.lua meta_flush), not one HINCRBY each.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldStore } from './hold.store';
import {
  createHold,
  createdHold,
  holdRecordKeys,
  newHoldEventIds,
  seatStates,
  untilRedisTimePasses,
} from '@test/support/hold-store';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';

const config = loadConfig();
const newEventId = newHoldEventIds();
let server: PrivateRedis;
let redis: Redis;
let store: HoldStore;

beforeAll(async () => {
  server = await startPrivateRedis();
  redis = new Redis(server.url);
  store = new HoldStore(redis, config, new DistributedLockService({ redis, keyPrefix: 'lock:' }));
  await store.onModuleInit();
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

/** Calls of each command since CONFIG RESETSTAT, commands run inside scripts and functions included. */
async function commandCalls(): Promise<Record<string, number>> {
  const info = await redis.info('commandstats');
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    calls[m[1]] = Number(m[2]);
  }
  return calls;
}

it('expires 91 holds of one event with one write per key (plus one outbox record per seat), leaving the state unbatched writes left', async () => {
  const eventId = newEventId();
  // 80 users with one 1-seat hold, 5 users with two 1-seat holds (their user-index field is rewritten
  // twice in the batch); all due in 300 ms. "keeper" has a due hold and a live one.
  const due: string[] = [];
  for (let i = 0; i < 80; i++) {
    due.push((await createdHold(store, eventId, [`S-${i}`], { user: `u${i}`, ttlMs: 300, fence: 0 })).holdId);
  }
  for (let i = 0; i < 5; i++) {
    for (const k of [0, 1]) {
      const seat = `T-${i}-${k}`;
      due.push(
        (await createdHold(store, eventId, [seat], { user: `twice${i}`, ttlMs: 300, fence: 0 })).holdId,
      );
    }
  }
  const live = await createdHold(store, eventId, ['K-live'], { user: 'keeper', ttlMs: 60_000, fence: 0 });
  due.push((await createdHold(store, eventId, ['K-due'], { user: 'keeper', ttlMs: 300, fence: 0 })).holdId);
  expect(due).toHaveLength(91);
  const last = Math.max(...(await Promise.all(due.map(async (id) => (await store.getHold(id))!.expireAtMs))));
  await untilRedisTimePasses(redis, last);

  await redis.config('RESETSTAT');
  const r = await store.sweepShard(store.layout.shardOf(eventId), 500);
  const calls = await commandCalls();

  expect(r).toMatchObject({ expiredHolds: 91, expiredSeats: 91, more: false });
  // one outbox record per seat, one change-log entry for the event
  expect(calls.xadd).toBe(91 + 1);
  // seats hash + one per hold bucket (91 records: 2 buckets) + users hash; unbatched: 3 per hold
  const buckets = (await holdRecordKeys(redis, store, eventId)).length;
  expect(buckets).toBeGreaterThan(1);
  expect(calls.hset).toBeLessThanOrEqual(1 + buckets + 1 + 1); // + meta, should a counter be set
  // per bucket: its due entries, and its entry in the event's head once empty (flush, then the sweep's follow)
  expect(calls.zrem).toBeLessThanOrEqual(2 * buckets + 1);
  expect(calls.hdel ?? 0).toBeLessThanOrEqual(1); // emptied user-index fields, one command
  expect(calls.zadd).toBeLessThanOrEqual(1 + 1 + 1 + buckets); // gc, shard gc, shard due, bucket heads

  // the state is what one write per hold left
  const states = await seatStates(store, eventId); // the seats not AVAILABLE
  expect([...states]).toEqual([['K-live', 'HELD']]);
  const statuses = await Promise.all(due.map(async (id) => (await store.getHold(id))!.status));
  expect(new Set(statuses)).toEqual(new Set(['EXPIRED']));
  expect((await store.getHold(live.holdId))!.status).toBe('ACTIVE');
  // the user index: keeper's live hold still counts against the cap (2 seats: one more, not two)
  await createdHold(store, eventId, ['K-more'], { user: 'keeper', limit: 2, fence: 0 });
  const over = await createHold(store, eventId, ['K-over'], { user: 'keeper', limit: 2, fence: 0 });
  expect(over).toMatchObject({ ok: false, error: 'HOLD_LIMIT_EXCEEDED' });
  const users = await redis.hvals(store.layout.eventKeys(eventId).users);
  expect(users.join('')).not.toMatch(/\nu\d+=|\ntwice\d=/); // every expired user's entry is gone
  expect(users.join('')).toContain(`\nkeeper=`);
  // every expired record is on the gc schedule, the event on the shard's
  const gc = await redis.zcard(store.layout.eventKeys(eventId).gc);
  expect(gc).toBe(91);
  const shardGc = await redis.zscore(store.layout.shardKeys(store.layout.shardOf(eventId)).gc, eventId);
  expect(shardGc).not.toBeNull();
});

it('a 4-seat hold, its extension and its release write the seats hash once each, and the event counters with one HSET', async () => {
  const eventId = newEventId();
  await createdHold(store, eventId, ['W-0'], { user: 'first', fence: 0 }); // the event's keys exist
  const seats = ['W-1', 'W-2', 'W-3', 'W-4'];
  await redis.config('RESETSTAT');
  const hold = await createdHold(store, eventId, seats, { user: 'four', fence: 0 });
  let calls = await commandCalls();
  // seats, the hold's record, the user index, the event's counters: one HSET each
  expect(calls.hset).toBe(4);
  expect(calls.hincrby ?? 0).toBe(0);
  expect(calls.xadd).toBe(2); // the change-log entry and the HoldCreated outbox record (seat.status)
  const meta = store.layout.eventKeys(eventId).meta;
  expect(await redis.hmget(meta, 'v', 'held', 'hn')).toEqual(['2', '5', '2']);

  await redis.config('RESETSTAT');
  const extended = await store.extendHold({
    holdId: hold.holdId,
    userId: 'four',
    ttlMs: 90_000, // within the lifetime (120 s by default in createdHold)
    maxExtensions: 3,
    fencingToken: 0,
  });
  expect(extended).toMatchObject({ ok: true });
  calls = await commandCalls();
  expect(calls.hset).toBe(3); // seats, record, counters (the version)
  expect(calls.hincrby ?? 0).toBe(0);

  await redis.config('RESETSTAT');
  const released = await store.releaseHold({ holdId: hold.holdId, userId: 'four', fencingToken: 0 });
  expect(released).toMatchObject({ ok: true });
  calls = await commandCalls();
  expect(calls.hincrby ?? 0).toBe(0);
  expect(await redis.hmget(meta, 'v', 'held', 'hn')).toEqual(['4', '1', '2']);
  const states = await seatStates(store, eventId);
  expect([...states]).toEqual([['W-0', 'HELD']]);
});
