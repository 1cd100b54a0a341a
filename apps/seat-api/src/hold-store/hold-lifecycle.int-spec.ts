/**
 * The hold store against a real Redis: every script's success and refusal paths, lazy expiry, the
 * outbox records, fencing, and concurrent sweeps. Keys live under this file's own REDIS_KEY_PREFIX.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldStore } from './hold.store';
import { eventually } from '@test/support/eventually';
import {
  createHold,
  newHoldEventIds,
  openHoldStore,
  seatStates,
  TestHold,
  untilRedisTimePasses,
} from '@test/support/hold-store';

const newEventId = newHoldEventIds();

const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;

beforeAll(() => ({ redis, locks, store } = openHoldStore(config)));
afterAll(() => redis.quit());

const hold = (eventId: string, seatIds: string[], o: TestHold = {}) => createHold(store, eventId, seatIds, o);

async function outbox(eventId: string) {
  // the shard's stream: this event's SeatExpired records only (it carries the holds' seat.status changes too)
  const entries = await redis.xrange(store.eventOutboxKey(eventId), '-', '+');
  return entries
    .map(([, fields]) => {
      const o: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) {
        o[fields[i]] = fields[i + 1];
      }
      return o;
    })
    .filter((o) => o.eventId === eventId && o.type === 'SeatExpired');
}

describe('HoldStore', () => {
  let eventId: string;
  beforeEach(async () => {
    eventId = newEventId();
    // the tokens these tests pass (1..100) count as issued: the seat lock's counter is past them
    await redis.set(locks.fenceKey(store.layout.tagOf(store.layout.shardOf(eventId))), 100);
  });

  it('holds free seats all-or-none and reports each conflicting seat', async () => {
    const first = await hold(eventId, ['A-1', 'A-2']);
    expect(first.ok).toBe(true);
    const overlap = await hold(eventId, ['A-2', 'A-3'], { user: 'bob' });
    expect(overlap).toEqual({
      ok: false,
      error: 'SEATS_UNAVAILABLE',
      conflicts: [{ seatId: 'A-2', reason: 'HELD' }],
    });
    const states = await seatStates(store, eventId);
    expect([...states.entries()].sort()).toEqual([
      ['A-1', 'HELD'],
      ['A-2', 'HELD'],
    ]);
  });

  it('returns the hold with Redis-time expiry and the fencing token', async () => {
    const r = await hold(eventId, ['B-1'], { ttlMs: 30_000, fence: 7 });
    if (!r.ok) {
      throw new Error(r.error);
    }
    expect(r.hold.status).toBe('ACTIVE');
    expect(r.hold.expireAtMs - r.hold.createdAtMs).toBe(30_000);
    expect(r.hold.fencingToken).toBe(7);
    expect(Math.abs(r.hold.nowMs - Date.now())).toBeLessThan(5_000);
    const read = await store.getHold(r.hold.holdId);
    expect(read).toMatchObject({ holdId: r.hold.holdId, eventId, userId: 'alice', seatIds: ['B-1'] });
  });

  it('treats a hold past expireAt as gone before any sweep, and records its expiry once', async () => {
    const old = await hold(eventId, ['C-1', 'C-2'], { ttlMs: 30 });
    if (!old.ok) {
      throw new Error(old.error);
    }
    await untilRedisTimePasses(redis, old.hold.expireAtMs);
    expect((await seatStates(store, eventId)).size).toBe(0);
    expect((await store.getHold(old.hold.holdId))?.status).toBe('EXPIRED');
    const taken = await hold(eventId, ['C-1'], { user: 'bob', fence: 2 });
    expect(taken.ok).toBe(true);
    const records = await outbox(eventId);
    expect(records.map((r) => r.seatId).sort()).toEqual(['C-1', 'C-2']);
    expect(records[0]).toMatchObject({
      type: 'SeatExpired',
      eventId,
      holdId: old.hold.holdId,
      userId: 'alice',
    });
    expect(Number(records[0].expireAt)).toBe(old.hold.expireAtMs);
    // the sweeper finds nothing left to do for the old hold
    const swept = await store.sweepShard(store.layout.shardOf(eventId), 100);
    expect(swept.expiredSeats).toBe(0);
    expect(await outbox(eventId)).toHaveLength(2);
  });

  it('extends up to the extension and lifetime caps', async () => {
    const r = await hold(eventId, ['D-1'], { ttlMs: 10_000 });
    if (!r.ok) {
      throw new Error(r.error);
    }
    const id = r.hold.holdId;
    const ext = await store.extendHold({
      holdId: id,
      userId: 'alice',
      ttlMs: 20_000,
      maxExtensions: 1,
      fencingToken: 2,
    });
    expect(ext.ok && ext.hold.extensionsUsed).toBe(1);
    const again = await store.extendHold({
      holdId: id,
      userId: 'alice',
      ttlMs: 20_000,
      maxExtensions: 1,
      fencingToken: 3,
    });
    expect(again).toMatchObject({ ok: false, error: 'EXTENSION_LIMIT_REACHED' });
    const tooLong = await store.extendHold({
      holdId: id,
      userId: 'alice',
      ttlMs: 500_000,
      maxExtensions: 5,
      fencingToken: 3,
    });
    expect(tooLong).toMatchObject({ ok: false, error: 'HOLD_LIFETIME_EXCEEDED' });
    const notMine = await store.extendHold({
      holdId: id,
      userId: 'mallory',
      ttlMs: 1000,
      maxExtensions: 5,
      fencingToken: 9,
    });
    expect(notMine).toEqual({ ok: false, error: 'HOLD_NOT_FOUND' });
  });

  it('releases idempotently and frees the seats without an expiry event', async () => {
    const r = await hold(eventId, ['E-1', 'E-2']);
    if (!r.ok) {
      throw new Error(r.error);
    }
    const rel = await store.releaseHold({ holdId: r.hold.holdId, userId: 'alice', fencingToken: 2 });
    expect(rel.ok && rel.hold.status).toBe('RELEASED');
    const again = await store.releaseHold({ holdId: r.hold.holdId, userId: 'alice', fencingToken: 3 });
    expect(again.ok && again.hold.status).toBe('RELEASED');
    expect((await seatStates(store, eventId)).size).toBe(0);
    expect(await outbox(eventId)).toHaveLength(0);
  });

  it('rejects a write carrying an older fencing token than the last writer of a seat', async () => {
    const a = await hold(eventId, ['F-1'], { fence: 10, ttlMs: 30 });
    expect(a.ok).toBe(true);
    await untilRedisTimePasses(redis, a.ok ? a.hold.expireAtMs : 0);
    // a paused holder with token 5 wakes up after someone with token 10 wrote the seat
    expect(await hold(eventId, ['F-1'], { fence: 5, user: 'bob' })).toEqual({
      ok: false,
      error: 'STALE_FENCING_TOKEN',
    });
    const fresh = await hold(eventId, ['F-1'], { fence: 11, user: 'bob' });
    if (!fresh.ok) {
      throw new Error(fresh.error);
    }
    const late = await store.releaseHold({ holdId: fresh.hold.holdId, userId: 'bob', fencingToken: 10 });
    expect(late).toMatchObject({ ok: false, error: 'STALE_FENCING_TOKEN' });
    // the fence survives a release: a stale writer cannot sneak in after the seat is free again
    await store.releaseHold({ holdId: fresh.hold.holdId, userId: 'bob', fencingToken: 12 });
    expect(await hold(eventId, ['F-1'], { fence: 11, user: 'carol' })).toEqual({
      ok: false,
      error: 'STALE_FENCING_TOKEN',
    });
  });

  it('caps the seats one user holds per event, counting only live holds', async () => {
    expect((await hold(eventId, ['G-1', 'G-2'], { limit: 3 })).ok).toBe(true);
    expect(await hold(eventId, ['G-3', 'G-4'], { limit: 3 })).toEqual({
      ok: false,
      error: 'HOLD_LIMIT_EXCEEDED',
      heldSeats: 2,
      limit: 3,
    });
    const short = await hold(eventId, ['G-5'], { user: 'bob', ttlMs: 20, limit: 1 });
    expect(short.ok).toBe(true);
    await untilRedisTimePasses(redis, short.ok ? short.hold.expireAtMs : 0);
    expect((await hold(eventId, ['G-6'], { user: 'bob', limit: 1 })).ok).toBe(true);
  });

  it('confirms in two steps, and the sweeper never expires a hold being confirmed', async () => {
    // 1 s: the confirm below must begin before the hold lapses, also on a loaded CI machine
    const r = await hold(eventId, ['H-1'], { ttlMs: 1000 });
    if (!r.ok) {
      throw new Error(r.error);
    }
    const id = r.hold.holdId;
    const begun = await store.beginConfirm({
      holdId: id,
      userId: 'alice',
      orderId: 'o-1',
      fencingToken: 2,
      confirmTimeoutMs: 10_000,
    });
    expect(begun.ok && begun.hold.status).toBe('CONFIRMING');
    await untilRedisTimePasses(redis, r.hold.expireAtMs); // its time is up, but it is being confirmed
    const swept = await store.sweepShard(store.layout.shardOf(eventId), 100);
    expect(swept.expiredSeats).toBe(0);
    expect((await seatStates(store, eventId)).get('H-1')).toBe('HELD');
    expect((await hold(eventId, ['H-1'], { user: 'bob', fence: 3 })).ok).toBe(false);
    const retry = await store.beginConfirm({
      holdId: id,
      userId: 'alice',
      orderId: 'o-1',
      fencingToken: 2,
      confirmTimeoutMs: 10_000,
    });
    expect(retry.ok).toBe(true);
    const other = await store.beginConfirm({
      holdId: id,
      userId: 'alice',
      orderId: 'o-2',
      fencingToken: 2,
      confirmTimeoutMs: 10_000,
    });
    expect(other).toMatchObject({ ok: false, error: 'HOLD_NOT_ACTIVE' });
    const done = await store.finishConfirm({ holdId: id, orderId: 'o-1' });
    expect(done.ok && done.hold.status).toBe('CONFIRMED');
    expect((await seatStates(store, eventId)).get('H-1')).toBe('BOOKED');
    expect(await hold(eventId, ['H-1'], { user: 'bob', fence: 4 })).toMatchObject({
      error: 'SEATS_UNAVAILABLE',
      conflicts: [{ seatId: 'H-1', reason: 'BOOKED' }],
    });
    expect(await store.releaseHold({ holdId: id, userId: 'alice', fencingToken: 5 })).toMatchObject({
      error: 'HOLD_CONFIRMED',
    });
    expect(await outbox(eventId)).toHaveLength(0);
  });

  it('refuses to confirm an expired hold and records its expiry', async () => {
    const r = await hold(eventId, ['I-1'], { ttlMs: 20 });
    if (!r.ok) {
      throw new Error(r.error);
    }
    await untilRedisTimePasses(redis, r.hold.expireAtMs);
    const c = await store.beginConfirm({
      holdId: r.hold.holdId,
      userId: 'alice',
      orderId: 'o',
      fencingToken: 2,
      confirmTimeoutMs: 1000,
    });
    expect(c).toMatchObject({ ok: false, error: 'HOLD_EXPIRED' });
    expect(await outbox(eventId)).toHaveLength(1);
  });

  it('reports a confirm stuck past its deadline, and abandoning it expires the hold', async () => {
    // 1 s: the confirm below must begin before the hold lapses, also on a loaded CI machine
    const r = await hold(eventId, ['J-1'], { ttlMs: 1000 });
    if (!r.ok) {
      throw new Error(r.error);
    }
    const begun = await store.beginConfirm({
      holdId: r.hold.holdId,
      userId: 'alice',
      orderId: 'o',
      fencingToken: 2,
      confirmTimeoutMs: 1000,
    });
    await untilRedisTimePasses(redis, begun.hold!.confirmDeadlineMs!);
    const swept = await store.sweepShard(store.layout.shardOf(eventId), 100);
    expect(swept.stuckConfirming).toEqual([r.hold.holdId]);
    // reported once, then again only after the recheck delay
    expect((await store.sweepShard(store.layout.shardOf(eventId), 100)).stuckConfirming).toEqual([]);
    const abandoned = await store.abandonConfirm({ holdId: r.hold.holdId });
    expect(abandoned.ok && abandoned.hold.status).toBe('EXPIRED');
    expect((await outbox(eventId)).map((o) => o.seatId)).toEqual(['J-1']);
  });

  it('frees every seat exactly once when several sweepers race over many due holds', async () => {
    const seats = Array.from({ length: 400 }, (_, i) => `K-${i}`);
    let lastExpiry = 0;
    for (let i = 0; i < seats.length; i += 2) {
      const r = await hold(eventId, seats.slice(i, i + 2), { user: `u${i}`, ttlMs: 30 });
      expect(r.ok).toBe(true);
      lastExpiry = r.ok ? r.hold.expireAtMs : lastExpiry;
    }
    await untilRedisTimePasses(redis, lastExpiry);
    let totalSeats = 0;
    for (let round = 0; round < 10; round++) {
      const results = await Promise.all(
        [1, 2, 3, 4].map(() => store.sweepShard(store.layout.shardOf(eventId), 37)),
      );
      totalSeats += results.reduce((n, r) => n + r.expiredSeats, 0);
      if (results.every((r) => !r.more)) {
        break;
      }
    }
    expect(totalSeats).toBe(400);
    const records = await outbox(eventId);
    expect(records).toHaveLength(400);
    expect(new Set(records.map((r) => r.seatId)).size).toBe(400);
    expect(await redis.zcard(store.layout.eventKeys(eventId).due)).toBe(0);
  });

  it('leaves an extended hold alone when the sweeper reads its old position in the index', async () => {
    // long enough for the extend to arrive in time on a loaded machine (it is checked below)
    const r = await hold(eventId, ['L-1'], { ttlMs: 2000 });
    if (!r.ok) {
      throw new Error(r.error);
    }
    const extended = await store.extendHold({
      holdId: r.hold.holdId,
      userId: 'alice',
      ttlMs: 30_000,
      maxExtensions: 3,
      fencingToken: 2,
    });
    expect(extended.ok).toBe(true);
    // the index's old position (the first expireAt) is now in the past: the sweep reads it
    await eventually(
      async () => {
        const [sec, us] = await redis.time();
        return Number(sec) * 1000 + Math.floor(Number(us) / 1000) > r.hold.expireAtMs;
      },
      5000,
      'the first expiry passed',
    );
    expect((await store.sweepShard(store.layout.shardOf(eventId), 10)).expiredSeats).toBe(0);
    expect((await seatStates(store, eventId)).get('L-1')).toBe('HELD');
  });

  it('re-marks seats booked from PostgreSQL without touching their fences', async () => {
    const lapsing = await hold(eventId, ['M-1'], { fence: 9, ttlMs: 10 });
    await untilRedisTimePasses(redis, lapsing.ok ? lapsing.hold.expireAtMs : 0);
    expect(await store.markBooked(eventId, ['M-1', 'M-2'])).toBe(2);
    expect(await store.markBooked(eventId, ['M-1'])).toBe(0);
    const states = await seatStates(store, eventId);
    expect(states.get('M-1')).toBe('BOOKED');
    expect(await hold(eventId, ['M-2'], { fence: 10 })).toMatchObject({ error: 'SEATS_UNAVAILABLE' });
  });
});
