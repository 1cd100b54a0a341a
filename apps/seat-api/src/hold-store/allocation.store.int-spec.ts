/**
 * Best-available holds against a real Redis (lua/best-available.lua, lua/allocation-index.lua): which
 * block is picked, the orphan rule, the free-seat index following every seat change, the reasons of a
 * refusal, seat locks respected, and many requests at once never sharing a seat.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { createHold, newHoldEventIds, openHoldStore, untilRedisTimePasses } from '@test/support/hold-store';
import { AllocationRow, AllocationStore, BestAvailableResult } from './allocation.store';
import { HoldIds } from './hold-ids';
import { HoldStore } from './hold.store';

const newEventId = newHoldEventIds();
const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;
let allocation: AllocationStore;

beforeAll(() => {
  ({ redis, locks, store } = openHoldStore(config));
  allocation = new AllocationStore(store, locks, redis, config);
});
afterAll(() => redis.quit());

/** Rows `S-<row>` of `seats` seats each, front first. */
const rowsOf = (names: string[], seats: number, section = 'S', category = 'standard'): AllocationRow[] =>
  names.map((row, i) => ({ rowKey: `${section}-${row}`, seats, rank: i, section, category, access: '' }));

function best(
  eventId: string,
  layout: AllocationRow[],
  quantity: number,
  o: { user?: string; section?: string; category?: string } = {},
): Promise<BestAvailableResult> {
  return allocation.bestAvailable(
    {
      eventId,
      holdId: HoldIds.generate(eventId),
      userId: o.user ?? 'alice',
      quantity,
      section: o.section,
      category: o.category,
      ttlMs: 60_000,
      maxLifetimeMs: 600_000,
      maxSeatsPerUser: 1000,
    },
    () => ({ rows: layout, orphanRule: 'none' }),
  );
}

const seatsOf = (r: BestAvailableResult) => {
  if (!r.ok) {
    throw new Error(`refused: ${JSON.stringify(r)}`);
  }
  return r.hold.seatIds;
};

const take = async (eventId: string, seatIds: string[], user = 'other') => {
  const r = await createHold(store, eventId, seatIds, { user });
  expect(r.ok).toBe(true);
  return r;
};

describe('AllocationStore.bestAvailable', () => {
  let eventId: string;
  beforeEach(async () => {
    eventId = newEventId();
    await redis.set(locks.fenceKey(store.layout.tagOf(store.layout.shardOf(eventId))), 100);
  });

  it('holds the block nearest the centre of the front row', async () => {
    const layout = rowsOf(['A', 'B'], 10);
    expect(await best(eventId, layout, 2)).toMatchObject({ ok: true });
    const r = await best(eventId, layout, 4);
    // went to the first hold (the centre); of the rest, 1-4 and 7-10 are as near it, and strand nothing
    expect(seatsOf(r)).toEqual(['S-A-1', 'S-A-2', 'S-A-3', 'S-A-4']);
  });

  it('goes to the next row when the front row has no block together', async () => {
    const layout = rowsOf(['A', 'B'], 6);
    await take(eventId, ['S-A-2', 'S-A-5']);
    // B-2..4 is nearer the centre but would strand B-1
    expect(seatsOf(await best(eventId, layout, 3))).toEqual(['S-B-1', 'S-B-2', 'S-B-3']);
  });

  it('never strands a single seat when another block exists, and does when none does', async () => {
    const layout = rowsOf(['A', 'B'], 8);
    // row A: free 1-3 and 5-8 (4 taken); a block of 3 in 5-8 strands one seat unless it is 5-7 or 6-8
    await take(eventId, ['S-A-4']);
    const r = await best(eventId, layout, 3);
    expect(seatsOf(r)).toEqual(['S-A-1', 'S-A-2', 'S-A-3']);
    // row A now: 5-8 free; 2 seats in it, orphan-free: 5-6 or 7-8
    const two = seatsOf(await best(eventId, layout, 2));
    expect([
      ['S-A-5', 'S-A-6'],
      ['S-A-7', 'S-A-8'],
    ]).toContainEqual(two);
    const rows = rowsOf(['C'], 3);
    const other = newEventId();
    // a row of 3 and a hold of 2: every choice strands one seat, so one is made anyway
    expect(seatsOf(await best(other, rows, 2))).toHaveLength(2);
  });

  it('tells sold out from not enough together, and whether a split would do', async () => {
    const layout = rowsOf(['A'], 4);
    await take(eventId, ['S-A-2']);
    expect(await best(eventId, layout, 3)).toEqual({
      ok: false,
      error: 'SEATS_UNAVAILABLE',
      reason: 'NOT_ENOUGH_TOGETHER',
      free: 3,
    });
    await take(eventId, ['S-A-1', 'S-A-3', 'S-A-4']);
    expect(await best(eventId, layout, 1)).toEqual({
      ok: false,
      error: 'SEATS_UNAVAILABLE',
      reason: 'SOLD_OUT',
      free: 0,
    });
  });

  it('picks only seats of the section or category asked for', async () => {
    const layout = [...rowsOf(['A'], 4, 'STALLS', 'standard'), ...rowsOf(['A'], 4, 'BOX', 'premium')];
    layout[1].rank = 1;
    // in a row of 4, seats 2-3 would strand 1 and 4: 1-2 it is
    expect(seatsOf(await best(eventId, layout, 2, { category: 'premium' }))).toEqual(['BOX-A-1', 'BOX-A-2']);
    expect(seatsOf(await best(eventId, layout, 2, { section: 'STALLS' }))).toEqual([
      'STALLS-A-1',
      'STALLS-A-2',
    ]);
  });

  it('follows releases: a released seat is offered again', async () => {
    const layout = rowsOf(['A'], 2);
    const r = await best(eventId, layout, 2);
    expect(seatsOf(r)).toEqual(['S-A-1', 'S-A-2']);
    expect(await best(eventId, layout, 1)).toMatchObject({ reason: 'SOLD_OUT' });
    if (!r.ok) {
      throw new Error('unreachable');
    }
    await store.releaseHold({ holdId: r.hold.holdId, userId: 'alice', fencingToken: r.hold.fencingToken });
    expect(seatsOf(await best(eventId, layout, 2))).toEqual(['S-A-1', 'S-A-2']);
  });

  it('follows expiry: the sweep frees an expired best-available hold, with SeatExpired records, and its seats are offered again', async () => {
    const layout = rowsOf(['A'], 2);
    const r = await allocation.bestAvailable(
      {
        eventId,
        holdId: HoldIds.generate(eventId),
        userId: 'alice',
        quantity: 2,
        ttlMs: 50,
        maxLifetimeMs: 600_000,
        maxSeatsPerUser: 10,
      },
      () => ({ rows: layout, orphanRule: 'none' }),
    );
    if (!r.ok) {
      throw new Error(r.error);
    }
    // held, though lapsed, until the sweep settles it (a lapsed hold's seats are not offered before)
    await untilRedisTimePasses(redis, r.hold.expireAtMs);
    expect(await best(eventId, layout, 1)).toMatchObject({ reason: 'SOLD_OUT' });
    const swept = await store.sweepShard(store.layout.shardOf(eventId), 100);
    expect(swept.expiredSeats).toBeGreaterThanOrEqual(2);
    const records = await redis.xrange(store.eventOutboxKey(eventId), '-', '+');
    const expiredSeats = records
      .map(([, f]) => Object.fromEntries(f.flatMap((v, i) => (i % 2 ? [] : [[v, f[i + 1]]]))))
      .filter((o) => o.eventId === eventId)
      .map((o) => o.seatId)
      .sort();
    expect(expiredSeats).toEqual(['S-A-1', 'S-A-2']);
    expect(seatsOf(await best(eventId, layout, 2))).toEqual(['S-A-1', 'S-A-2']);
  });

  it('skips seats under a seat lock (a hold of those seats is on its way)', async () => {
    const layout = rowsOf(['A', 'B'], 2);
    const lock = await locks.tryAcquire(store.layout.seatLockKeys(eventId, ['S-A-1']));
    expect(lock).not.toBeNull();
    try {
      expect(seatsOf(await best(eventId, layout, 2))).toEqual(['S-B-1', 'S-B-2']);
    } finally {
      await lock!.release();
    }
  });

  it('gives no seat to two holds when many ask at once', async () => {
    const layout = rowsOf(['A', 'B', 'C', 'D', 'E'], 9);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => best(eventId, layout, 1 + (i % 4), { user: `u${i}` })),
    );
    const held = results.flatMap((r) => (r.ok ? r.hold.seatIds : []));
    expect(new Set(held).size).toBe(held.length);
    expect(held.length).toBeGreaterThan(30);
    // every refusal is a shortage, never anything else
    for (const r of results) {
      if (!r.ok) {
        expect(r.error).toBe('SEATS_UNAVAILABLE');
      }
    }
  });
});
