/**
 * Seat ownership in the hold store, against a real Redis: a script writes a seat only while the seat is
 * still its hold's. The repair from PostgreSQL (markBooked) or a booking that committed may take a seat
 * away from a live hold; that hold's extend, confirm, release, abandon and expiry must then leave the seat
 * BOOKED, never turn it back into HELD or AVAILABLE.
 */
import Redis from 'ioredis';
import { DistributedLockService } from '@app/distributed-lock';
import {
  createdHold,
  newHoldEventIds,
  openHoldStore,
  seatStates,
  untilRedisTimePasses as untilRedisTime,
} from '@test/support/hold-store';
import { HoldStore } from './hold.store';

const newEventId = newHoldEventIds();

let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;

beforeAll(() => ({ redis, locks, store } = openHoldStore()));
afterAll(() => redis.quit());

/** A fencing token drawn the way the service draws it: by taking (and here at once releasing) a seat lock. */
async function token(eventId: string): Promise<number> {
  const lock = await locks.acquire(store.layout.seatLockKeys(eventId, ['any']), { leaseMs: 5_000 });
  await lock.release();
  return lock.fencingToken;
}

const hold = async (eventId: string, seatIds: string[], o: { user?: string; ttlMs?: number } = {}) =>
  createdHold(store, eventId, seatIds, { ...o, fence: await token(eventId) });

const extend = async (holdId: string, eventId: string, userId = 'alice') =>
  store.extendHold({ holdId, userId, ttlMs: 90_000, maxExtensions: 5, fencingToken: await token(eventId) });
const release = async (holdId: string, eventId: string, userId = 'alice') =>
  store.releaseHold({ holdId, userId, fencingToken: await token(eventId) });
const beginConfirm = async (holdId: string, eventId: string, timeoutMs = 60_000) =>
  store.beginConfirm({
    holdId,
    userId: 'alice',
    orderId: 'o-1',
    fencingToken: await token(eventId),
    confirmTimeoutMs: timeoutMs,
  });

const states = async (eventId: string) => Object.fromEntries(await seatStates(store, eventId));
const outboxSeats = async (eventId: string) =>
  (await redis.xrange(store.eventOutboxKey(eventId), '-', '+'))
    .filter(([, f]) => f[f.indexOf('eventId') + 1] === eventId && f[f.indexOf('type') + 1] === 'SeatExpired')
    .map(([, f]) => f[f.indexOf('seatId') + 1]);

/** Waits on Redis's clock (the store's only clock) until `atMs` has passed. */
const untilRedisTimePasses = (atMs: number) => untilRedisTime(redis, atMs);

describe('HoldStore seat ownership', () => {
  let eventId: string;
  beforeEach(() => {
    eventId = newEventId();
  });

  it('hold, markBooked, extend, release: the booked seat stays BOOKED', async () => {
    const h = await hold(eventId, ['A-1', 'A-2']);
    expect(await store.markBooked(eventId, ['A-1'])).toBe(1);

    const ext = await extend(h.holdId, eventId);
    expect(ext).toMatchObject({
      ok: false,
      error: 'SEATS_LOST',
      lostSeats: [{ seatId: 'A-1', state: 'BOOKED' }],
    });
    expect(await states(eventId)).toEqual({ 'A-1': 'BOOKED', 'A-2': 'HELD' });

    const rel = await release(h.holdId, eventId);
    expect(rel.ok && rel.hold.status).toBe('RELEASED');
    // release gives back only what is still the hold's
    expect(await states(eventId)).toEqual({ 'A-1': 'BOOKED' });
    expect(await outboxSeats(eventId)).toEqual([]);
  });

  it('refuses to begin a confirm when a seat was booked by someone else, and changes nothing', async () => {
    const h = await hold(eventId, ['B-1', 'B-2']);
    await store.markBooked(eventId, ['B-2']);
    const c = await beginConfirm(h.holdId, eventId);
    expect(c).toMatchObject({
      ok: false,
      error: 'SEATS_LOST',
      lostSeats: [{ seatId: 'B-2', state: 'BOOKED' }],
    });
    expect((await store.getHold(h.holdId))?.status).toBe('ACTIVE');
    expect(await states(eventId)).toEqual({ 'B-1': 'HELD', 'B-2': 'BOOKED' });
  });

  it('abandoning a confirm leaves a seat booked meanwhile BOOKED', async () => {
    const h = await hold(eventId, ['C-1', 'C-2']);
    expect((await beginConfirm(h.holdId, eventId)).ok).toBe(true);
    // an instance boots and repairs Redis from PostgreSQL, where another hold booked C-1
    await store.markBooked(eventId, ['C-1']);
    const a = await store.abandonConfirm({ holdId: h.holdId });
    expect(a.ok).toBe(true);
    const after = await states(eventId);
    expect(after['C-1']).toBe('BOOKED');
    expect(after['C-2']).not.toBe('BOOKED');
    expect(await outboxSeats(eventId)).not.toContain('C-1');
  });

  it('a confirm abandoned after its hold ran out frees only its own seats, with one SeatExpired each', async () => {
    // 1 s: the confirm below must begin before the hold lapses, also on a loaded CI machine
    const h = await hold(eventId, ['D-1', 'D-2'], { ttlMs: 1000 });
    expect((await beginConfirm(h.holdId, eventId)).ok).toBe(true);
    await store.markBooked(eventId, ['D-1']);
    await untilRedisTimePasses(h.expireAtMs);
    const a = await store.abandonConfirm({ holdId: h.holdId });
    expect(a.ok).toBe(true);
    expect(await states(eventId)).toEqual({ 'D-1': 'BOOKED' });
    expect(await outboxSeats(eventId)).toEqual(['D-2']);
  });

  it('the sweeper expires only the seats still held, and counts and records only those', async () => {
    const h = await hold(eventId, ['E-1', 'E-2', 'E-3'], { ttlMs: 50 });
    await store.markBooked(eventId, ['E-2']);
    await untilRedisTimePasses(h.expireAtMs);
    const swept = await store.sweepShard(store.layout.shardOf(eventId), 100);
    expect(swept).toMatchObject({ expiredHolds: 1, expiredSeats: 2 });
    expect(await states(eventId)).toEqual({ 'E-2': 'BOOKED' });
    expect((await outboxSeats(eventId)).sort()).toEqual(['E-1', 'E-3']);
    expect((await store.getHold(h.holdId))?.status).toBe('EXPIRED');
  });

  it('a committed booking wins over a hold that took its seat after Redis lost it; that hold cannot undo it', async () => {
    const booked = await hold(eventId, ['F-1', 'F-2']);
    expect((await beginConfirm(booked.holdId, eventId)).ok).toBe(true);
    // Redis loses F-2's entry (eviction, a partial restore): bob holds the seat in the meantime
    await redis.hdel(store.layout.eventKeys(eventId).seats, 'F-2');
    const bob = await hold(eventId, ['F-2', 'F-3'], { user: 'bob' });
    // alice's booking committed in PostgreSQL (unique per seat): finishing it marks both seats BOOKED
    const done = await store.finishConfirm({ holdId: booked.holdId, orderId: 'o-1' });
    expect(done.ok && done.hold.status).toBe('CONFIRMED');
    expect(await states(eventId)).toEqual({ 'F-1': 'BOOKED', 'F-2': 'BOOKED', 'F-3': 'HELD' });

    expect(await extend(bob.holdId, eventId, 'bob')).toMatchObject({
      ok: false,
      error: 'SEATS_LOST',
      lostSeats: [{ seatId: 'F-2', state: 'BOOKED' }],
    });
    expect((await release(bob.holdId, eventId, 'bob')).ok).toBe(true);
    expect(await states(eventId)).toEqual({ 'F-1': 'BOOKED', 'F-2': 'BOOKED' });
  });

  it('markBooked keeps the fences and counts only seats it changed', async () => {
    const h = await hold(eventId, ['G-1']);
    const fence = h.fencingToken;
    expect(await store.markBooked(eventId, ['G-1', 'G-2'])).toBe(2);
    expect(await store.markBooked(eventId, ['G-1', 'G-2'])).toBe(0);
    const raw = await redis.hget(store.layout.eventKeys(eventId).seats, 'G-1');
    expect(raw?.endsWith(`|${fence}`)).toBe(true);
  });
});
