/**
 * The lock-free read a busy seat lock answers with (HoldStore.seatConflicts): the same conflicts, by the
 * same rule, as the hold script's own refusal, and nothing written. Against a real Redis.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { eventually } from '@test/support/eventually';
import { createdHold, newHoldEventIds, openHoldStore, TestHold } from '@test/support/hold-store';
import { HoldIds } from './hold-ids';
import { HoldStore } from './hold.store';

const newEventId = newHoldEventIds();

const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;
let eventId: string;

beforeAll(() => ({ redis, locks, store } = openHoldStore(config)));
afterAll(() => redis.quit());
beforeEach(async () => {
  eventId = newEventId();
  await redis.set(locks.fenceKey(store.layout.tagOf(store.layout.shardOf(eventId))), 100); // tokens 1..100 count as issued
});

const hold = (seatIds: string[], o: TestHold = {}) => createdHold(store, eventId, seatIds, o);

async function dumpAll(): Promise<string> {
  const keys = (await redis.keys(`${process.env.REDIS_KEY_PREFIX}*{${eventId}}*`)).sort();
  const values = await Promise.all(
    keys.map(async (k) => [k, (await redis.dumpBuffer(k))?.toString('base64')]),
  );
  return JSON.stringify(values);
}

it('names the taken seats in the order asked, exactly as the hold script refuses them', async () => {
  await hold(['A-3', 'A-1']);
  await store.markBooked(eventId, ['A-4']);
  const asked = ['A-1', 'A-2', 'A-3', 'A-4', 'A-5'];
  const read = await store.seatConflicts(eventId, asked);
  expect(read).toEqual([
    { seatId: 'A-1', reason: 'HELD' },
    { seatId: 'A-3', reason: 'HELD' },
    { seatId: 'A-4', reason: 'BOOKED' },
  ]);
  const refused = await store.createHold({
    eventId,
    holdId: HoldIds.generate(eventId),
    userId: 'bob',
    seatIds: asked,
    ttlMs: 60_000,
    maxLifetimeMs: 120_000,
    maxSeatsPerUser: 10,
    fencingToken: 2,
  });
  expect(refused).toEqual({ ok: false, error: 'SEATS_UNAVAILABLE', conflicts: read });
  expect(await store.seatConflicts(eventId, ['A-2', 'A-5', 'Z-9'])).toEqual([]);
});

it('a lapsed hold is no conflict, unless it is being confirmed', async () => {
  // The confirm must begin before its hold lapses: with a 30 ms hold it sometimes did not on a loaded CI
  // machine (beginConfirm refused). A 1 s hold leaves room; the other hold, made after the confirm began
  // with the same lifetime, lapses last, so once it reads EXPIRED both holds are past their expiry.
  const confirming = await hold(['B-2'], { ttlMs: 1000, fence: 2 });
  const begun = await store.beginConfirm({
    holdId: confirming.holdId,
    userId: 'alice',
    orderId: 'o-1',
    fencingToken: 3,
    confirmTimeoutMs: 60_000,
  });
  expect(begun.ok).toBe(true);
  const lapsed = await hold(['B-1'], { ttlMs: 1000 });
  await eventually(async () => (await store.getHold(lapsed.holdId))?.status === 'EXPIRED', 5000, 'lapse');
  expect(await store.seatConflicts(eventId, ['B-1', 'B-2'])).toEqual([{ seatId: 'B-2', reason: 'HELD' }]);
});

it('writes nothing: a lapsed hold it meets is left for the next locked script to expire', async () => {
  const lapsed = await hold(['C-1'], { ttlMs: 30 });
  await hold(['C-2']);
  await eventually(async () => (await store.getHold(lapsed.holdId))?.status === 'EXPIRED', 5000, 'lapse');
  const before = await dumpAll();
  await store.seatConflicts(eventId, ['C-1', 'C-2', 'C-3']);
  expect(await dumpAll()).toBe(before);
});

it('answers on an auto-pipelining client whose pipeline was opened before the first read (the store defines the script when built)', async () => {
  // defined at first use, the read landed on this already-open pipeline, which lacks the command: a
  // TypeError inside ioredis, then "results[i] is not iterable" thrown out of its callback (seat-api died)
  const piped = new Redis(process.env.REDIS_URL!, {
    keyPrefix: process.env.REDIS_KEY_PREFIX,
    enableAutoPipelining: true,
  });
  try {
    await piped.ping();
    const fresh = new HoldStore(
      piped,
      config,
      new DistributedLockService({ redis: piped, keyPrefix: 'lock:' }),
    );
    await hold(['D-1']);
    const [, read] = await Promise.all([
      piped.get('opens-the-pipeline'),
      fresh.seatConflicts(eventId, ['D-1', 'D-2']),
    ]);
    expect(read).toEqual([{ seatId: 'D-1', reason: 'HELD' }]);
  } finally {
    piped.disconnect();
  }
});
