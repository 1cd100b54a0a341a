/**
 * What a hold is priced by, kept in its record (the text pricing/ writes, opaque to the store), against a
 * real Redis: written by the hold's own step, kept through every later step (extend, the confirm steps, the
 * sweep), changed only while the hold is ACTIVE, by its holder, and only from what the caller read
 * (PRICING_CHANGED otherwise, nothing written); a HoldConfirmed carries the price it is given.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldStore } from './hold.store';
import { createdHold, newHoldEventIds, openHoldStore, untilRedisTimePasses } from '@test/support/hold-store';

const newEventId = newHoldEventIds();
const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;

beforeAll(() => ({ redis, locks, store } = openHoldStore(config)));
afterAll(() => redis.quit());

let eventId: string;
beforeEach(async () => {
  eventId = newEventId();
  await redis.set(locks.fenceKey(store.layout.tagOf(store.layout.shardOf(eventId))), 100);
});

it('a hold made without pricing reads as not priced; one made with it keeps it through extend and confirm', async () => {
  expect((await createdHold(store, eventId, ['A-1'])).pricing).toBe('');
  const h = await createdHold(store, eventId, ['A-2', 'A-3'], { pricing: '3|CODE|,child' });
  expect(h.pricing).toBe('3|CODE|,child');
  const extended = await store.extendHold({
    holdId: h.holdId,
    userId: 'alice',
    ttlMs: 30_000,
    maxExtensions: 3,
    fencingToken: 2,
  });
  expect(extended.ok && extended.hold.pricing).toBe('3|CODE|,child');
  const begun = await store.beginConfirm({
    holdId: h.holdId,
    userId: 'alice',
    orderId: 'o-1',
    fencingToken: 3,
    confirmTimeoutMs: 10_000,
  });
  expect(begun.ok && begun.hold.pricing).toBe('3|CODE|,child');
  const price = JSON.stringify({ currency: 'EUR', total: 100 });
  const finished = await store.finishConfirm({ holdId: h.holdId, orderId: 'o-1', price });
  expect(finished.ok && finished.hold.pricing).toBe('3|CODE|,child');
  const records = (await redis.xrange(store.eventOutboxKey(eventId), '-', '+'))
    .map(
      ([, f]) =>
        Object.fromEntries(f.flatMap((v, i) => (i % 2 ? [] : [[v, f[i + 1]]]))) as Record<string, string>,
    )
    .filter((r) => r.eventId === eventId && r.type === 'HoldConfirmed');
  expect(records.map((r) => r.price)).toEqual([price]);
});

it('changes only from what the caller read, only the holder, only while ACTIVE', async () => {
  const h = await createdHold(store, eventId, ['B-1'], { pricing: '1' });
  const changed = await store.setPricing({
    holdId: h.holdId,
    userId: 'alice',
    expected: '1',
    pricing: '1|TEN',
  });
  expect(changed.ok && changed.hold.pricing).toBe('1|TEN');
  // a second change that read the record before the first: refused, the first kept
  const stale = await store.setPricing({
    holdId: h.holdId,
    userId: 'alice',
    expected: '1',
    pricing: '1||child',
  });
  expect(stale).toMatchObject({ ok: false, error: 'PRICING_CHANGED', hold: { pricing: '1|TEN' } });
  const other = await store.setPricing({ holdId: h.holdId, userId: 'bob', expected: '1|TEN', pricing: '1' });
  expect(other).toEqual({ ok: false, error: 'HOLD_NOT_FOUND' });
  await store.releaseHold({ holdId: h.holdId, userId: 'alice', fencingToken: 5 });
  const released = await store.setPricing({
    holdId: h.holdId,
    userId: 'alice',
    expected: '1|TEN',
    pricing: '1',
  });
  expect(released).toMatchObject({
    ok: false,
    error: 'HOLD_NOT_ACTIVE',
    hold: { status: 'RELEASED', pricing: '1|TEN' },
  });
});

it('a hold whose time ran out is expired by the change, not re-priced', async () => {
  const h = await createdHold(store, eventId, ['C-1'], { pricing: '2', ttlMs: 50 });
  await untilRedisTimePasses(redis, h.expireAtMs);
  const r = await store.setPricing({ holdId: h.holdId, userId: 'alice', expected: '2', pricing: '2|X' });
  expect(r).toMatchObject({ ok: false, error: 'HOLD_NOT_ACTIVE', hold: { status: 'EXPIRED', pricing: '2' } });
});
