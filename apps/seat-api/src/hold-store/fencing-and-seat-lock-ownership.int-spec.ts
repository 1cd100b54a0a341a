/**
 * Fencing after Redis loses data, against a real Redis. The lock's counter (INCR per hash tag) can restart
 * from 0 (restart without persistence, FLUSHALL, eviction) while seats still carry tokens drawn before:
 * the store compares every token with the counter, refuses tokens the counter never issued, and raises
 * the counter to the highest fence it finds, so writers recover after at most one refusal. And a hold
 * written in the seat locks' pipelined section checks that every lock is still the request's own
 * (NOT_LOCKED otherwise, writing nothing) and lets go of them as its last change.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { createdHold, createHold } from '@test/support/hold-store';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { HoldIds } from './hold-ids';
import { HoldStore } from './hold.store';
import { holdLetGoOfLock } from './hold.types';
import { eventIdsInDistinctShards } from '@test/support/shard-events';
import { HoldLayout } from './hold-keys';

const newEventId = eventIdsInDistinctShards(new HoldLayout(loadConfig().holds.shards));

const config = loadConfig();

/** A store and the lock it takes its tokens from, on one client (as in the app). */
function storeOn(redis: Redis) {
  const locks = new DistributedLockService({ redis, keyPrefix: 'lock:' });
  return { redis, locks, store: new HoldStore(redis, config, locks) };
}
type Kit = ReturnType<typeof storeOn>;

/**
 * What a client retrying a 503 BUSY does: each attempt takes the seats' lock (a new token) and writes
 * under it. Returns the first success, or the last refusal, and how many attempts it took.
 */
async function withRetries<R extends { ok: boolean }>(
  kit: Kit,
  eventId: string,
  seatIds: string[],
  write: (token: number) => Promise<R>,
  maxAttempts = 5,
): Promise<{ result: R; attempts: number }> {
  let result!: R;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const lock = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, seatIds), { leaseMs: 5_000 });
    try {
      result = await write(lock.fencingToken);
    } finally {
      await lock.release();
    }
    if (result.ok) {
      return { result, attempts: attempt };
    }
  }
  return { result, attempts: maxAttempts };
}

const create = (kit: Kit, eventId: string, seatIds: string[], user: string, token: number) =>
  createHold(kit.store, eventId, seatIds, { user, fence: token });
const created = (kit: Kit, eventId: string, seatIds: string[], user: string, token: number) =>
  createdHold(kit.store, eventId, seatIds, { user, fence: token });

describe('HoldStore fencing after Redis lost data', () => {
  let kit: Kit;
  let eventId: string;
  let counter: string;

  beforeAll(() => {
    kit = storeOn(new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX }));
  });
  afterAll(() => kit.redis.quit());
  beforeEach(async () => {
    eventId = newEventId();
    counter = kit.locks.fenceKey(kit.store.layout.tagOf(kit.store.layout.shardOf(eventId)));
    await kit.redis.set(counter, 1000); // a thousand seat changes happened on this event before
  });

  it('counter lost after a write with token 1001: owner and next customer recover after at most one refusal', async () => {
    const lock = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['S-1']), { leaseMs: 5_000 });
    expect(lock.fencingToken).toBe(1001);
    const hold = await created(kit, eventId, ['S-1', 'S-2'], 'alice', lock.fencingToken);
    const gone = await created(kit, eventId, ['S-3'], 'carol', lock.fencingToken);
    await lock.release();
    expect(
      (await kit.store.releaseHold({ holdId: gone.holdId, userId: 'carol', fencingToken: 1001 })).ok,
    ).toBe(true); // S-3 is free again and keeps fence 1001
    await kit.redis.del(counter); // the counter is lost; the seats keep their fences

    // the owner's extend, release; the next customer on a freed seat: each at most one refusal
    const ext = await withRetries(kit, eventId, ['S-1', 'S-2'], (t) =>
      kit.store.extendHold({
        holdId: hold.holdId,
        userId: 'alice',
        ttlMs: 90_000,
        maxExtensions: 5,
        fencingToken: t,
      }),
    );
    expect(ext.result.ok).toBe(true);
    expect(ext.attempts).toBeLessThanOrEqual(2);

    const next = await withRetries(kit, eventId, ['S-3'], (t) => create(kit, eventId, ['S-3'], 'bob', t));
    expect(next.result.ok).toBe(true);
    expect(next.attempts).toBeLessThanOrEqual(2);

    const rel = await withRetries(kit, eventId, ['S-1', 'S-2'], (t) =>
      kit.store.releaseHold({ holdId: hold.holdId, userId: 'alice', fencingToken: t }),
    );
    expect(rel.result.ok).toBe(true);
    expect(rel.attempts).toBe(1); // the counter was healed above every seat already
    expect(Number(await kit.redis.get(counter))).toBeGreaterThan(1001);
  });

  it('counter lost: the owner of a hold can still confirm after retrying', async () => {
    const lock = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['T-1']), { leaseMs: 5_000 });
    const hold = await created(kit, eventId, ['T-1'], 'alice', lock.fencingToken);
    await lock.release();
    await kit.redis.del(counter);
    const begun = await withRetries(kit, eventId, ['T-1'], (t) =>
      kit.store.beginConfirm({
        holdId: hold.holdId,
        userId: 'alice',
        orderId: 'o-1',
        fencingToken: t,
        confirmTimeoutMs: 60_000,
      }),
    );
    expect(begun.result.ok).toBe(true);
    expect(begun.attempts).toBeLessThanOrEqual(2);
    const done = await kit.store.finishConfirm({ holdId: hold.holdId, orderId: 'o-1' });
    expect(done.ok && done.hold.status).toBe('CONFIRMED');
  });

  it('refuses a token above the counter: it was drawn before the counter was lost', async () => {
    expect(await create(kit, eventId, ['U-1'], 'alice', 1001)).toEqual({
      ok: false,
      error: 'STALE_FENCING_TOKEN',
    });
    expect((await create(kit, eventId, ['U-1'], 'alice', 1000)).ok).toBe(true);
  });

  describe('FLUSHALL', () => {
    let priv: PrivateRedis;
    let fresh: Kit;
    beforeAll(async () => {
      priv = await startPrivateRedis();
      fresh = storeOn(priv.client);
    });
    afterAll(() => priv?.stop());

    it('a writer paused across a FLUSHALL cannot poison the seats for everyone after it', async () => {
      await priv.client.set(
        fresh.locks.fenceKey(fresh.store.layout.tagOf(fresh.store.layout.shardOf(eventId))),
        1000,
      );
      const paused = await fresh.locks.acquire(fresh.store.layout.seatLockKeys(eventId, ['V-1']), {
        leaseMs: 5_000,
      });
      expect(paused.fencingToken).toBe(1001);
      await priv.client.flushall(); // counter, holds and the paused writer's lock key are gone

      const first = await withRetries(fresh, eventId, ['V-2'], (t) =>
        create(fresh, eventId, ['V-2'], 'bob', t),
      );
      expect(first).toMatchObject({ result: { ok: true }, attempts: 1 });
      // the paused writer wakes up and writes with its pre-flush token: refused, nothing written
      expect(await create(fresh, eventId, ['V-1'], 'mallory', paused.fencingToken)).toEqual({
        ok: false,
        error: 'STALE_FENCING_TOKEN',
      });
      // so every later writer goes through at the first attempt, on every seat
      for (const seat of ['V-1', 'V-3']) {
        const r = await withRetries(fresh, eventId, [seat], (t) =>
          create(fresh, eventId, [seat], 'carol', t),
        );
        expect(r).toMatchObject({ result: { ok: true }, attempts: 1 });
      }
    });
  });
});

describe('HoldStore.createHold with the seat lock’s ownership (a pipelined section)', () => {
  let kit: Kit;
  let eventId: string;
  beforeAll(() => {
    kit = storeOn(new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX }));
  });
  afterAll(() => kit.redis.quit());
  beforeEach(() => {
    eventId = newEventId();
  });

  const withLock = (
    seatIds: string[],
    lock: { keys: readonly string[]; owner: string },
    fence = 0,
    letGoOfLock = false,
  ) =>
    kit.store.createHold({
      eventId,
      holdId: HoldIds.generate(eventId),
      userId: 'alice',
      seatIds,
      ttlMs: 60_000,
      maxLifetimeMs: 120_000,
      maxSeatsPerUser: 10,
      fencingToken: fence,
      lock,
      letGoOfLock,
    });

  it('refuses NOT_LOCKED, writing nothing, when a seat lock is not the given owner’s', async () => {
    const seats = ['P-1', 'P-2'];
    const lock = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, seats), { leaseMs: 5_000 });
    const changesBefore = await kit.redis.xlen(kit.store.layout.eventKeys(eventId).changes).catch(() => 0);
    expect(await withLock(seats, { keys: lock.ownership.keys, owner: 'someone-else' })).toEqual({
      ok: false,
      error: 'NOT_LOCKED',
    });
    // one of the two keys not held at all: refused too (all keys or none)
    await lock.release();
    const half = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['P-1']), { leaseMs: 5_000 });
    const both = kit.store.layout.seatLockKeys(eventId, seats).map((k) => `lock:${k}`);
    expect(await withLock(seats, { keys: both, owner: half.ownership.owner })).toMatchObject({
      error: 'NOT_LOCKED',
    });
    await half.release();
    expect(await kit.store.seatConflicts(eventId, seats)).toEqual([]);
    expect(await kit.redis.xlen(kit.store.layout.eventKeys(eventId).changes).catch(() => 0)).toBe(
      changesBefore,
    );
  });

  it('with the lock its own: holds, taking the counter’s value as the token when none is given', async () => {
    const seats = ['Q-1'];
    const lock = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, seats), { leaseMs: 5_000 });
    const r = await withLock(seats, lock.ownership);
    await lock.release();
    expect(r.ok && r.hold.fencingToken).toBe(lock.fencingToken);
    // a given token is used as before (a section that ran after its grant)
    const again = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['Q-2']), {
      leaseMs: 5_000,
    });
    const r2 = await withLock(['Q-2'], again.ownership, again.fencingToken);
    await again.release();
    expect(r2.ok && r2.hold.fencingToken).toBe(again.fencingToken);
  });

  it('asked to let go of the lock, deletes its keys with every answer but NOT_LOCKED, as its last change', async () => {
    const lockKeys = (seats: string[]) =>
      kit.store.layout.seatLockKeys(eventId, seats).map((k) => `lock:${k}`);
    const held = async (seats: string[]) => kit.redis.exists(...lockKeys(seats));
    // OK: the hold is made and the lock is gone with it
    const a = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['L-1', 'L-2']), {
      leaseMs: 5_000,
    });
    // as a section does (HeldLock.letGoInScript): the lock is then done here too, not left tracked
    const made = await a.letGoInScript(withLock(['L-1', 'L-2'], a.ownership, 0, true), holdLetGoOfLock);
    expect(made.ok && made.hold.fencingToken).toBe(a.fencingToken);
    expect(await held(['L-1', 'L-2'])).toBe(0);
    // SEATS_UNAVAILABLE: nothing held, the lock is gone all the same (the section ends with this answer)
    const b = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['L-2']), { leaseMs: 5_000 });
    expect(await b.letGoInScript(withLock(['L-2'], b.ownership, 0, true), holdLetGoOfLock)).toMatchObject({
      error: 'SEATS_UNAVAILABLE',
    });
    expect(await held(['L-2'])).toBe(0);
    // NOT_LOCKED: another owner's lock is left as it is
    const c = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['L-3']), { leaseMs: 5_000 });
    expect(await withLock(['L-3'], { keys: c.ownership.keys, owner: 'someone-else' }, 0, true)).toEqual({
      ok: false,
      error: 'NOT_LOCKED',
    });
    expect(await kit.redis.get(lockKeys(['L-3'])[0])).toBe(c.ownership.owner);
    await c.release();
    // not asked: the lock stays its holder's to release
    const d = await kit.locks.acquire(kit.store.layout.seatLockKeys(eventId, ['L-4']), { leaseMs: 5_000 });
    expect(await withLock(['L-4'], d.ownership)).toMatchObject({ ok: true });
    expect(await held(['L-4'])).toBe(1);
    await expect(d.release()).resolves.toBe('RELEASED');
  });
});
