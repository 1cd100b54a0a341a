/**
 * The sharded layout against a real Redis: the shard's due index finds due holds of any of its events
 * (and only visits those), ended holds are forgotten per shard, and old events leave (keys deleted once
 * past their retention with no live hold). Keys live under this file's own REDIS_KEY_PREFIX.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { eventually } from '@test/support/eventually';
import { createdHold, retainUntil } from '@test/support/hold-store';
import { eventIdsInDistinctShards } from '@test/support/shard-events';
import { HoldIds } from './hold-ids';
import { fnv1a32, HoldLayout } from './hold-keys';
import { HoldStore } from './hold.store';

const config = loadConfig();
let redis: Redis;
let store: HoldStore;
const DAY = 86_400_000;

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  store = new HoldStore(redis, config, new DistributedLockService({ redis, keyPrefix: 'lock:' }));
});
afterAll(() => redis.quit());

const newEventId = eventIdsInDistinctShards(new HoldLayout(config.holds.shards));

async function hold(eventId: string, seatId: string, ttlMs: number): Promise<string> {
  // no seat lock: token 0 is never above the counter
  return (await createdHold(store, eventId, [seatId], { user: `u-${seatId}`, ttlMs, fence: 0 })).holdId;
}

async function redisNow(): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Every key of the event that exists (no prefix). */
async function eventKeysPresent(eventId: string): Promise<string[]> {
  const keys = Object.values(store.layout.eventKeys(eventId));
  const exists = await Promise.all(keys.map((k) => redis.exists(k)));
  return keys.filter((_, i) => exists[i] === 1);
}

describe('layout', () => {
  it('puts an event in shard fnv1a(lower-case id) mod N, whatever the spelling, and every key under its tag', () => {
    const layout = new HoldLayout(64);
    const id = '5f0c2c1e-8f7a-4e2b-9c1d-3a4b5c6d7e8f';
    expect(layout.shardOf(id)).toBe(fnv1a32(id) % 64);
    expect(layout.shardOf(id.toUpperCase())).toBe(layout.shardOf(id));
    const tag = layout.tagOf(layout.shardOf(id));
    for (const key of [
      ...Object.values(layout.eventKeys(id)),
      ...Object.values(layout.shardKeys(layout.shardOf(id))),
      ...layout.seatLockKeys(id, ['A-1']),
    ]) {
      expect(key.slice(key.indexOf('{'), key.indexOf('}') + 1)).toBe(tag);
    }
    // a known vector of FNV-1a 32: stable across processes and versions
    expect(fnv1a32('a')).toBe(0xe40c292c);
  });

  it('spreads events over the shards', () => {
    const layout = new HoldLayout(64);
    const counts = new Array<number>(64).fill(0);
    const next = eventIdsInDistinctShards(new HoldLayout(1)); // plain random ids
    for (let i = 0; i < 6400; i++) {
      counts[layout.shardOf(next())]++;
    }
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(160);
  });
});

describe('shard sweep', () => {
  it('expires the due holds of every event of the shard, and leaves the rest', async () => {
    const layout = store.layout;
    // three events in one shard: ids drawn until they share one
    const first = newEventId();
    const shard = layout.shardOf(first);
    const events = [first];
    while (events.length < 3) {
      const id = randomUUID();
      if (layout.shardOf(id) === shard) {
        events.push(id);
      }
    }
    const due = [await hold(events[0], 'A-1', 200), await hold(events[1], 'A-1', 200)];
    const live = await hold(events[2], 'A-1', 60_000);
    const dueAt = (await store.getHold(due[1]))!.expireAtMs;
    await eventually(async () => (await redisNow()) > dueAt, 5000, 'both due');
    const r = await store.sweepShard(shard, 100);
    expect(r).toMatchObject({ expiredHolds: 2, expiredSeats: 2, more: false });
    for (const id of due) {
      expect((await store.getHold(id))?.status).toBe('EXPIRED');
    }
    expect((await store.getHold(live))?.status).toBe('ACTIVE');
    // the shard's due index keeps only the event with a live hold, at that hold's expiry
    const index = await redis.zrange(layout.shardKeys(shard).due, 0, -1, 'WITHSCORES');
    expect(index).toEqual([events[2], String((await store.getHold(live))!.expireAtMs)]);
    // one record per freed seat in the shard's outbox, naming its event
    const records = (await redis.xrange(store.outboxKey(shard), '-', '+')).filter(
      ([, f]) => f[f.indexOf('type') + 1] === 'SeatExpired', // not the holds' seat.status changes
    );
    expect(records.map(([, f]) => f[f.indexOf('eventId') + 1]).sort()).toEqual([events[0], events[1]].sort());
  });

  it('costs what is due: 300 events holding something far off are not visited', async () => {
    const eventId = newEventId();
    const shard = store.layout.shardOf(eventId);
    for (let i = 0; i < 300; i++) {
      let id = randomUUID();
      while (store.layout.shardOf(id) !== shard) {
        id = randomUUID();
      }
      await hold(id, 'A-1', 60_000);
    }
    // the sweep reads the shard's due head only: nothing there is due, so nothing is touched (no seat, no
    // hold, no event key written: the shard's indexes are as they were)
    const before = await redis.dump(store.layout.shardKeys(shard).due);
    expect(await store.sweepShard(shard, 10)).toMatchObject({ expiredHolds: 0, more: false });
    expect(await redis.dump(store.layout.shardKeys(shard).due)).toEqual(before);
  });
});

describe('old events leave', () => {
  it('removes every key of an event past start + retention once no hold is live or kept; keeps one with a live hold', async () => {
    const old = newEventId();
    const busy = newEventId();
    const ended = await hold(old, 'A-1', 200);
    const live = await hold(busy, 'A-1', 60_000);
    await store.markBooked(old, ['B-1']);
    // then their retention passes (2 days after a start 3 days ago): no new hold is taken from here on
    const longAgo = new Date(Date.now() - 3 * DAY);
    await store.registerEvent(old, longAgo);
    await store.registerEvent(busy, longAgo);
    const endedAt = (await store.getHold(ended))!.expireAtMs;
    await eventually(async () => (await redisNow()) > endedAt, 5000, 'the hold of the old event is over');
    expect(await eventKeysPresent(old)).not.toEqual([]);

    // the busy event: its hold is live, so it keeps everything and is looked at again when that hold is due
    await store.sweepShard(store.layout.shardOf(busy), 100);
    expect((await store.getHold(live))?.status).toBe('ACTIVE');
    expect(await retainUntil(redis, store, busy)).toBe((await store.getHold(live))!.expireAtMs);

    // the old event: its last hold expires (with its SeatExpired); the ended hold stays readable for
    // HOLD_RETENTION_SECONDS, and the event's keys with it
    const k = store.layout.shardKeys(store.layout.shardOf(old));
    const r = await store.sweepShard(store.layout.shardOf(old), 100);
    expect(r).toMatchObject({ expiredSeats: 1, removedEvents: 0 });
    expect((await store.getHold(ended))?.status).toBe('EXPIRED');
    const forgetAt = Number(await redis.zscore(k.gc, old));
    expect(await retainUntil(redis, store, old)).toBe(forgetAt);

    // once the ended hold is forgotten (its retention made to pass now), the event's keys go, leaving a tombstone
    const now = await redisNow();
    await redis.zadd(store.layout.eventKeys(old).gc, now, HoldIds.parse(ended)!.hid);
    await redis.zadd(k.gc, now, old);
    await redis.zadd(k.events, now, old);
    const gone = await store.sweepShard(store.layout.shardOf(old), 100);
    expect(gone).toMatchObject({ forgottenHolds: 1, removedEvents: 1 });
    expect(await eventKeysPresent(old)).toEqual([]);
    expect(await retainUntil(redis, store, old)).toBeNull();
    expect(await redis.zscore(k.due, old)).toBeNull();
    expect(await redis.zscore(k.gc, old)).toBeNull();
    expect(await redis.zscore(k.ended, old)).not.toBeNull();
    // the record of the last expiry still goes out (behind the hold's own HoldCreated)
    expect((await redis.xrange(k.outbox, '-', '+')).map(([, f]) => f[f.indexOf('type') + 1])).toEqual([
      'HoldCreated',
      'SeatExpired',
    ]);
    // nothing writes its keys again: the repair and a hold are refused by the tombstone
    expect(await store.markBooked(old, ['B-1'])).toBe(0);
    expect(await eventKeysPresent(old)).toEqual([]);
  });

  it('keeps an event whose retention has not passed, with or without holds', async () => {
    const eventId = newEventId();
    const start = new Date(Date.now() - DAY); // started yesterday: kept 2 days
    await store.registerEvent(eventId, start);
    await store.markBooked(eventId, ['A-1']);
    await store.sweepShard(store.layout.shardOf(eventId), 100);
    expect(await eventKeysPresent(eventId)).not.toEqual([]);
    expect(await retainUntil(redis, store, eventId)).toBe(start.getTime() + 2 * DAY);
  });
});
