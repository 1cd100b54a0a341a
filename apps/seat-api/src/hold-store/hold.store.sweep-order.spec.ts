/**
 * One event's SeatExpired records are written in expireAt order, also when a backlog is swept in several
 * steps (the relay keeps the stream's order to Kafka, so this is the order consumers see). An event's
 * holds sit in several buckets (hold-buckets.lua.ts); a step that took a bucket's due holds up to its
 * budget before looking at the next bucket wrote a later hold of one bucket before an earlier hold of
 * another (seen as a rare failure of the relay order test in test/expiry/shard-ownership.e2e-spec.ts,
 * whose sweeps take 25 holds a step). Against the test Redis: 150 holds over 4 buckets, interleaved in
 * time, all due, swept 7 at a time.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { HoldStore } from './hold.store';
import {
  createdHold,
  holdRecordKeys,
  newHoldEventIds,
  openHoldStore,
  untilRedisTimePasses,
} from '../../../../test/support/hold-store';

const newEventId = newHoldEventIds();
const config = loadConfig();
let redis: Redis;
let store: HoldStore;

beforeAll(() => ({ redis, store } = openHoldStore(config)));
afterAll(() => redis.quit());

it('writes one event’s SeatExpired records in expireAt order when its backlog spans buckets and steps', async () => {
  const eventId = newEventId();
  const holds = [];
  for (let i = 0; i < 150; i++) {
    // 2 ms apart, so every hold has its own expireAt; hold ids (hence buckets) are random
    holds.push(
      await createdHold(store, eventId, [`S-${i}`], { user: `u${i}`, ttlMs: 400 + 2 * i, fence: 0 }),
    );
  }
  expect((await holdRecordKeys(redis, store, eventId)).length).toBeGreaterThan(2);
  await untilRedisTimePasses(redis, Math.max(...holds.map((h) => h.expireAtMs)));

  const shard = store.layout.shardOf(eventId);
  let expired = 0;
  for (let step = 0; step < 100; step++) {
    const r = await store.sweepShard(shard, 7);
    expired += r.expiredHolds;
    if (!r.more) {
      break;
    }
  }
  expect(expired).toBe(150);

  const records = await redis.xrange(store.layout.shardKeys(shard).outbox, '-', '+');
  const expireAts = records
    .map(([, fields]) => {
      const f = new Map<string, string>();
      for (let i = 0; i < fields.length; i += 2) {
        f.set(fields[i], fields[i + 1]);
      }
      return f;
    })
    .filter((f) => f.get('eventId') === eventId)
    .map((f) => Number(f.get('expireAt')));
  expect(expireAts).toHaveLength(150);
  expect(expireAts).toEqual([...expireAts].sort((a, b) => a - b));
});
