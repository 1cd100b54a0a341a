/**
 * Hold buckets (lua/hold-buckets.lua, hold-keys.ts): an event's hold records and due entries are split
 * by hid into buckets that grow one split at a time. Against the test Redis: after many splits every
 * record and due entry sits in the bucket the hid names (computed here independently of the Lua), each
 * bucket is still a listpack, and every reader finds its hold: reads, extend, release, the lock-free
 * conflict read, the seat-map status read, the sweep, the garbage collection and the event's removal.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { HoldIds } from './hold-ids';
import { HoldStore } from './hold.store';
import { BUCKET_SPLIT_LOAD } from './lua/manifest';
import { SeatChangeLog } from './seat-change-log';
import {
  createdHold,
  holdRecordKeys,
  newHoldEventIds,
  openHoldStore,
  untilRedisTimePasses,
} from '@test/support/hold-store';

const newEventId = newHoldEventIds();
const config = loadConfig();
let redis: Redis;
let store: HoldStore;

beforeAll(() => ({ redis, store } = openHoldStore(config)));
afterAll(() => redis.quit());

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The bucket of `hid` for level / split pointer, as the design states it (not as the Lua computes it). */
function expectedBucket(hid: string, level: number, split: number): number {
  const code = B64.indexOf(hid[0]) * 4096 + B64.indexOf(hid[1]) * 64 + B64.indexOf(hid[2]);
  const low = code % 2 ** level;
  return low < split ? code % 2 ** (level + 1) : low;
}

async function bucketState(eventId: string) {
  const [hl, hp, hn] = await redis.hmget(store.layout.eventKeys(eventId).meta, 'hl', 'hp', 'hn');
  const level = Number(hl ?? 0);
  const split = Number(hp ?? 0);
  return { level, split, records: Number(hn ?? 0), count: 2 ** level + split };
}

/**
 * `n` one-seat holds of distinct users (the per-user cap stays out of the way), in batches of 100; hold `i`
 * lives `ttlMs(i)`, 60 s unless given.
 */
async function manyHolds(
  eventId: string,
  n: number,
  ttlMs: (i: number) => number = () => 60_000,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, n - start) }, (_, k) =>
        createdHold(store, eventId, [`S-${start + k}`], {
          user: `u${start + k}`,
          ttlMs: ttlMs(start + k),
          fence: 0,
        }),
      ),
    );
    ids.push(...batch.map((h) => h.holdId));
  }
  return ids;
}

/** OBJECT ENCODING (ioredis adds no key prefix to it). */
const encoding = async (key: string) =>
  String(await redis.call('OBJECT', 'ENCODING', `${process.env.REDIS_KEY_PREFIX ?? ''}${key}`));

const hidOf = (holdId: string) => HoldIds.parse(holdId)!.hid;

it('splits buckets as holds are added, and keeps every record and due entry in its hid’s bucket, each a listpack', async () => {
  const eventId = newEventId();
  const ids = await manyHolds(eventId, 600);
  const state = await bucketState(eventId);
  expect(state.records).toBe(600);
  expect(state.count).toBe(Math.ceil(600 / BUCKET_SPLIT_LOAD));

  const e = store.layout.eventKeys(eventId);
  const seenRecords = new Map<string, number>();
  const seenDue = new Map<string, number>();
  for (let b = 0; b < state.count; b++) {
    const records = await redis.hkeys(`${e.holds}:${b}`);
    records.forEach((hid) => seenRecords.set(hid, b));
    const due = await redis.zrange(`${e.due}:${b}`, 0, -1, 'WITHSCORES');
    for (let i = 0; i < due.length; i += 2) {
      seenDue.set(due[i], b);
    }
    expect(await encoding(`${e.holds}:${b}`)).toBe('listpack');
    expect(await encoding(`${e.due}:${b}`)).toBe('listpack');
    // the head's entry for a bucket is at most its earliest due time
    const head = await redis.zscore(e.due, String(b));
    expect(Number(head)).toBeLessThanOrEqual(Number(due[1]));
  }
  expect(seenRecords.size).toBe(600);
  expect(seenDue.size).toBe(600);
  for (const id of ids) {
    const hid = hidOf(id);
    const b = expectedBucket(hid, state.level, state.split);
    expect([hid, seenRecords.get(hid), seenDue.get(hid)]).toEqual([hid, b, b]);
  }
  const read = await Promise.all(ids.map((id) => store.getHold(id)));
  expect(read.every((h, i) => h?.holdId === ids[i] && h.status === 'ACTIVE')).toBe(true);
});

it('extend and release find holds in split buckets; the sweep expires every bucket’s due holds and empties the head', async () => {
  const eventId = newEventId();
  // Only the holds meant to lapse are short: the others must still be live when the test releases or
  // extends them, one by one, which on a loaded machine can take longer than any short lifetime. The
  // extended ones start at 20 s and go to 60 s, so the head check at the end sees their due entries moved.
  const ttl = [60_000, 20_000, 400];
  const ids = await manyHolds(eventId, 300, (i) => ttl[i % 3]);
  const released = ids.filter((_, i) => i % 3 === 0);
  const extended = ids.filter((_, i) => i % 3 === 1);
  for (const holdId of released) {
    const r = await store.releaseHold({
      holdId,
      userId: (await store.getHold(holdId))!.userId,
      fencingToken: 0,
    });
    expect(r.ok).toBe(true);
  }
  for (const holdId of extended) {
    const h = (await store.getHold(holdId))!;
    const r = await store.extendHold({
      holdId,
      userId: h.userId,
      ttlMs: 60_000,
      maxExtensions: 3,
      fencingToken: 0,
    });
    expect(r.ok).toBe(true);
  }
  const e = store.layout.eventKeys(eventId);
  const { count } = await bucketState(eventId);
  let dueEntries = 0;
  for (let b = 0; b < count; b++) {
    dueEntries += await redis.zcard(`${e.due}:${b}`);
  }
  expect(dueEntries).toBe(200); // released holds left the due index

  const lapsing = ids.filter((_, i) => i % 3 === 2);
  const last = Math.max(
    ...(await Promise.all(lapsing.map(async (id) => (await store.getHold(id))!.expireAtMs))),
  );
  await untilRedisTimePasses(redis, last);
  let expiredSeats = 0;
  for (let round = 0; round < 20; round++) {
    const r = await store.sweepShard(store.layout.shardOf(eventId), 37);
    expiredSeats += r.expiredSeats;
    if (!r.more) {
      break;
    }
  }
  expect(expiredSeats).toBe(100);
  const statuses = await Promise.all(ids.map(async (id) => (await store.getHold(id))!.status));
  expect(statuses.filter((s) => s === 'EXPIRED')).toHaveLength(100);
  expect(statuses.filter((s) => s === 'ACTIVE')).toHaveLength(100);
  // only the extended holds' buckets are left in the head, none of them due yet
  const head = await redis.zrange(e.due, 0, -1, 'WITHSCORES');
  for (let i = 1; i < head.length; i += 2) {
    expect(Number(head[i])).toBeGreaterThan(Date.now() + 30_000);
  }
});

it('the lock-free conflict read and the seat-map status read find a hold being confirmed in a split bucket', async () => {
  const eventId = newEventId();
  const ids = await manyHolds(eventId, 200);
  expect((await bucketState(eventId)).count).toBeGreaterThan(2);
  const confirming = ids.slice(0, 20);
  for (const holdId of confirming) {
    const h = (await store.getHold(holdId))!;
    const r = await store.beginConfirm({
      holdId,
      userId: h.userId,
      orderId: `o-${holdId}`,
      fencingToken: 0,
      confirmTimeoutMs: 30,
    });
    expect(r.ok).toBe(true);
  }
  const seats = confirming.map((_, i) => `S-${i}`);
  // past the confirm deadline the seats' own expireAt has passed: only the hold record says CONFIRMING
  await untilRedisTimePasses(redis, (await store.getHold(confirming[19]))!.confirmDeadlineMs!);
  expect(await store.seatConflicts(eventId, seats)).toEqual(
    seats.map((seatId) => ({ seatId, reason: 'HELD' })),
  );

  const log = new SeatChangeLog(redis, config);
  const codes = new Map<string, string>();
  let cursor = '0';
  do {
    const page = await log.scan(eventId, cursor, 100, Date.now(), 60_000);
    for (let i = 0; i < page.seats.length; i += 2) {
      codes.set(page.seats[i], page.seats[i + 1]);
    }
    cursor = page.cursor;
  } while (cursor !== '0');
  expect(seats.map((s) => codes.get(s))).toEqual(seats.map(() => 'H0'));
  expect(codes.get('S-150')).toMatch(/^H\d+$/);
});

it('garbage collection forgets records in every bucket and counts them out; an ended event loses every bucket key', async () => {
  // ended holds forgotten at once, the event removable at once (below what the environment may set)
  const short = Object.create(config, {
    holds: { value: { ...config.holds, retentionSeconds: 0, eventRetentionSeconds: 0 } },
  }) as typeof config;
  const { redis: r2, store: s2 } = openHoldStore(short);
  try {
    const eventId = newEventId();
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) {
      const h = await createdHold(s2, eventId, [`G-${i}`], { user: `g${i}`, fence: 0 });
      ids.push(h.holdId);
    }
    // then its retention passes: no new hold from here on, its keys go once nothing is live or kept
    await s2.registerEvent(eventId, new Date(Date.now() - 3_600_000));
    const { count } = await bucketState(eventId);
    expect(count).toBe(Math.ceil(150 / BUCKET_SPLIT_LOAD));
    for (const holdId of ids) {
      expect(
        (await s2.releaseHold({ holdId, userId: (await s2.getHold(holdId))!.userId, fencingToken: 0 })).ok,
      ).toBe(true);
    }
    let forgotten = 0;
    let removed = 0;
    for (let round = 0; round < 20 && removed === 0; round++) {
      const r = await s2.sweepShard(s2.layout.shardOf(eventId), 1000);
      forgotten += r.forgottenHolds;
      removed += r.removedEvents;
    }
    expect(forgotten).toBe(150);
    expect(removed).toBe(1);
    const keys = [
      ...Object.values(s2.layout.eventKeys(eventId)),
      ...s2.layout.holdBucketKeys(eventId, count),
    ];
    expect(await r2.exists(...keys)).toBe(0);
  } finally {
    await r2.quit();
  }
});

/**
 * One event's SeatExpired records are written in expireAt order, also when a backlog is swept in several
 * steps (the relay keeps the stream's order to Kafka). A step that took a bucket's due holds up to its
 * budget before looking at the next bucket wrote a later hold of one bucket before an earlier hold of
 * another (seen as a rare failure of the relay order test in test/shards/shard-ownership.e2e-spec.ts,
 * whose sweeps take 25 holds a step): 150 holds over 4 buckets, interleaved in time, swept 7 at a time.
 */
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
    .filter((f) => f.get('eventId') === eventId && f.get('type') === 'SeatExpired')
    .map((f) => Number(f.get('expireAt')));
  expect(expireAts).toHaveLength(150);
  expect(expireAts).toEqual([...expireAts].sort((a, b) => a - b));
});
