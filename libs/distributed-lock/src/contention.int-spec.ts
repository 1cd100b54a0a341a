/**
 * How a busy acquire waits: woken by a release in this process instead of sleeping on a
 * backoff, a contention handler that may answer without the lock, and a longer budget for a holder in
 * this process than for one elsewhere. Against a real Redis.
 */
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { register } from 'prom-client';
import { LockBusy, LockNotAcquiredError } from '.';
import { DistributedLockService } from './distributed-lock.service';
import { eventually } from '@test/support/eventually';
import { lockService, testRedis } from '@test/support/distributed-lock';

let redis: Redis;
let locks: DistributedLockService;
/** A second lock service on the same Redis: a holder in another process, as far as `locks` can tell. */
let elsewhere: DistributedLockService;
const key = () => `test:${randomUUID()}`;

beforeAll(async () => {
  redis = await testRedis();
  locks = lockService(redis);
  elsewhere = lockService(redis);
});
afterAll(async () => {
  await locks.onApplicationShutdown();
  await elsewhere.onApplicationShutdown();
  await redis.quit();
});
afterEach(() => expect(locks.heldCount + elsewhere.heldCount).toBe(0));

async function waits(ended: 'woken' | 'timer'): Promise<number> {
  const metric = await register.getSingleMetric('distributed_lock_waits_total')?.get();
  return metric?.values.find((v) => v.labels.ended === ended)?.value ?? 0;
}

it('a waiter is woken by the release in this process, not by a timer', async () => {
  const k = key();
  const holder = await locks.acquire(k, { leaseMs: 60_000 });
  const before = { woken: await waits('woken'), timer: await waits('timer') };
  const busy: LockBusy[] = [];
  const waiter = locks.acquire(k, { leaseMs: 1000, waitMs: 60_000, onBusy: (b) => void busy.push(b) });
  await eventually(() => busy.length > 0, 5000);
  await holder.release();
  const b = await waiter;
  // had it slept on a timer sized from the holder's 60 s lease, the test would time out
  expect({ woken: await waits('woken'), timer: await waits('timer') }).toEqual({
    woken: before.woken + 1,
    timer: before.timer,
  });
  await b.release();
});

it('a release that lands while the contention handler runs is not missed', async () => {
  const k = key();
  const holder = await locks.acquire(k, { leaseMs: 60_000 });
  const before = await waits('woken');
  const b = await locks.acquire(k, {
    leaseMs: 1000,
    waitMs: 60_000,
    onBusy: async () => {
      await holder.release(); // released after Redis said "busy", before the waiter waits
    },
  });
  expect(await waits('woken')).toBe(before + 1);
  await b.release();
});

it('the contention handler ends the wait by throwing: the caller gets its error, nothing is locked', async () => {
  const k = key();
  const holder = await locks.acquire(k, { leaseMs: 5000 });
  const seen: LockBusy[] = [];
  const answer = new Error('taken: answered without the lock');
  const err = await locks
    .acquire(k, {
      leaseMs: 1000,
      waitMs: 5000,
      onBusy: (b) => {
        seen.push(b);
        throw answer;
      },
    })
    .catch((e: unknown) => e);
  expect(err).toBe(answer);
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ keys: [k], attempt: 1 });
  expect(seen[0].holderTtlMs).toBeGreaterThan(0);
  expect(seen[0].holderTtlMs).toBeLessThanOrEqual(5000);
  expect(locks.heldCount).toBe(1); // only the holder
  await holder.release();
});

it('the handler is asked once more when the wait runs out, before LockNotAcquiredError', async () => {
  const k = key();
  const holder = await elsewhere.acquire(k, { leaseMs: 5000 });
  const seen: LockBusy[] = [];
  const err = await locks
    .acquire(k, { leaseMs: 1000, waitMs: 60, onBusy: (b) => void seen.push(b) })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LockNotAcquiredError);
  expect(seen.length).toBeGreaterThanOrEqual(2);
  expect(seen.at(-1)!.remainingMs).toBe(0);
  await holder.release();
});

it('a holder in this process is waited for up to localWaitMs; one elsewhere only for waitMs', async () => {
  const here = key();
  const there = key();
  const localHolder = await locks.acquire(here, { leaseMs: 60_000 });
  const remoteHolder = await elsewhere.acquire(there, { leaseMs: 60_000 });
  const budgets = { waitMs: 50, localWaitMs: 30_000 };
  const seenHere: LockBusy[] = [];
  const waiter = locks.acquire(here, { leaseMs: 1000, ...budgets, onBusy: (b) => void seenHere.push(b) });
  await eventually(() => seenHere.length > 0, 5000);
  expect(seenHere[0].remainingMs).toBeGreaterThan(budgets.waitMs);
  await localHolder.release();
  await (await waiter).release();

  const seenThere: LockBusy[] = [];
  const err = await locks
    .acquire(there, { leaseMs: 1000, ...budgets, onBusy: (b) => void seenThere.push(b) })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LockNotAcquiredError);
  expect(seenThere[0].remainingMs).toBeLessThanOrEqual(budgets.waitMs);
  await remoteHolder.release();
});

it('a release wakes every waiter of the key; each ends with the lock or with its handler', async () => {
  const k = key();
  const holder = await locks.acquire(k, { leaseMs: 60_000 });
  const answered = new Error('someone else has it now');
  const firstBusy = new Set<number>();
  const waiters = Array.from({ length: 20 }, (_, i) =>
    locks.acquire(k, {
      leaseMs: 60_000,
      waitMs: 60_000,
      onBusy: (b) => {
        if (b.attempt === 1) {
          firstBusy.add(i); // the first holder: keep waiting
          return;
        }
        throw answered; // woken, and another waiter won: as a seat read would, answer without the lock
      },
    }),
  );
  await eventually(() => firstBusy.size === 20, 5000);
  await holder.release();
  const results = await Promise.allSettled(waiters);
  const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  expect(won).toHaveLength(1);
  expect(results.filter((r) => r.status === 'rejected' && r.reason === answered)).toHaveLength(19);
  await won[0].release();
});
