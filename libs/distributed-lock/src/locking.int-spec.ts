/**
 * The lock against a real Redis: mutual exclusion, ownership, leases and extend, the watchdog, waiting,
 * multi-key locks, fencing tokens and errors of the locked code.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import Redis from 'ioredis';
import { LuaScript } from '@app/redis';
import { FENCED_WRITE, TEST_LUA_DIR } from '@test/support/lua/manifest';
import { LockLostError, LockNotAcquiredError, currentLock } from '.';
import { DistributedLockService } from './distributed-lock.service';
import { LockScripts } from './lock-scripts';
import { eventually } from '@test/support/eventually';
import { lockService, sleep, testRedis, LOCK_HOLDERS } from '@test/support/distributed-lock';

let redis: Redis;
let locks: DistributedLockService;
const key = () => `test:${randomUUID()}`;
const lockKeyOf = (k: string) => `lock:{${k}}`;

beforeAll(async () => {
  redis = await testRedis();
  locks = lockService(redis, { watchdogLeaseMs: 300 });
});
afterAll(async () => {
  await locks.onApplicationShutdown();
  await redis.quit();
});
afterEach(() => expect(locks.heldCount).toBe(0)); // (10, 15) nothing left held or watched after a test

it('N concurrent read-sleep-write workers end with the exact count', async () => {
  const k = key();
  await redis.set('counter', '0');
  await Promise.all(
    Array.from({ length: 20 }, () =>
      locks.runExclusive(k, { leaseMs: 2000, waitMs: 10_000 }, async () => {
        const v = Number(await redis.get('counter'));
        await sleep(5);
        await redis.set('counter', String(v + 1));
      }),
    ),
  );
  expect(await redis.get('counter')).toBe('20');
});

it('a second acquire while held fails at once', async () => {
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 5000 });
  expect(await locks.tryAcquire(k, { leaseMs: 5000 })).toBeNull();
  await expect(locks.acquire(k, { leaseMs: 5000 })).rejects.toBeInstanceOf(LockNotAcquiredError);
  expect(await a.release()).toBe('RELEASED');
});

it('a holder process killed with SIGKILL frees the lock within one lease', async () => {
  const k = key();
  const lease = 1500;
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', path.join(LOCK_HOLDERS, 'killed-holder.ts'), k, String(lease)],
    { env: process.env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
    child.once('exit', () => reject(new Error('child exited before locking')));
  });
  expect(await locks.tryAcquire(k, { leaseMs: 1000 })).toBeNull();
  const killedAt = performance.now();
  child.kill('SIGKILL');
  const b = await locks.acquire(k, { leaseMs: 1000, waitMs: lease + 1000 });
  expect(performance.now() - killedAt).toBeLessThan(lease + 500);
  await b.release();
});

it('another acquisition (even in this process) cannot release a lock it does not own', async () => {
  const k = key();
  // leases here are long enough for the grant to arrive valid on a loaded machine (acquire refuses a
  // grant that arrives after its lease); the test waits on Redis's clock for them to run out
  const a = await locks.acquire(k, { leaseMs: 500 });
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 5000); // the lease ran out in Redis
  const b = await locks.acquire(k, { leaseMs: 5000 });
  expect(await a.release()).toBe('NOT_HELD');
  expect(await redis.exists(lockKeyOf(k))).toBe(1);
  expect(await b.release()).toBe('RELEASED');
});

it('a lease that expires mid-work lets B in; A’s release leaves B alone, in one round trip', async () => {
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 500 });
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 5000); // the lease ran out in Redis
  const b = await locks.acquire(k, { leaseMs: 5000 });
  const releaseCalls = jest.spyOn(LockScripts.prototype, 'release');
  expect(await a.release()).toBe('NOT_HELD');
  expect(releaseCalls).toHaveBeenCalledTimes(1);
  releaseCalls.mockRestore();
  expect(await redis.get(lockKeyOf(k))).not.toBeNull();
  expect(a.signal.aborted).toBe(true); // A learned it had lost the lease
  await b.release();
});

it('extend after expiry while B holds fails and leaves B’s lease untouched', async () => {
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 500 });
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 5000); // the lease ran out in Redis
  const b = await locks.acquire(k, { leaseMs: 3000 });
  const before = await redis.pttl(lockKeyOf(k));
  expect(await a.extend(60_000)).toBe(false);
  expect(await redis.pttl(lockKeyOf(k))).toBeLessThanOrEqual(before);
  await b.release();
});

it('extend works repeatedly; a released handle can no longer extend', async () => {
  const k = key();
  // each extend lands well inside the lease (1.5 s of slack for a slow round trip) and visibly moves it
  const a = await locks.acquire(k, { leaseMs: 2000 });
  for (let i = 0; i < 3; i++) {
    await sleep(500);
    expect(await a.extend(5000)).toBe(true);
    expect(await redis.pttl(lockKeyOf(k))).toBeGreaterThan(2000);
  }
  expect(await a.release()).toBe('RELEASED');
  expect(await a.extend(5000)).toBe(false);
});

it('the watchdog keeps a critical section ten leases long alive', async () => {
  const k = key();
  await locks.runExclusive(k, {}, async (lock) => {
    await sleep(3000); // watchdogLeaseMs = 300
    expect(lock.signal.aborted).toBe(false);
    expect(await redis.get(lockKeyOf(k))).not.toBeNull();
    expect(await locks.tryAcquire(k, { leaseMs: 1000 })).toBeNull();
  });
  expect(await redis.exists(lockKeyOf(k))).toBe(0);
});

it('a refused renewal aborts the holder’s signal and fires onLockLost', async () => {
  const lost: string[] = [];
  const svc = lockService(redis, { watchdogLeaseMs: 300, onLockLost: ({ reason }) => lost.push(reason) });
  const k = key();
  const lock = await svc.acquire(k);
  await redis.set(lockKeyOf(k), 'someone-else', 'PX', 5000); // e.g. a Redis failover lost our key
  await eventually(() => lock.signal.aborted, 2000);
  expect(lock.signal.reason).toBeInstanceOf(LockLostError);
  expect(lost[0]).toMatch(/renewal refused/);
  expect(await lock.release()).toBe('NOT_HELD');
  expect(await redis.get(lockKeyOf(k))).toBe('someone-else');
});

it('no orphan renewal: a released lock is not renewed, a failed acquire starts no watchdog', async () => {
  const k = key();
  const lock = await locks.acquire(k);
  await lock.release();
  await redis.set(lockKeyOf(k), 'other', 'PX', 400);
  // had the released lock's watchdog renewed 'other', the key would never run out
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 3000);
  await redis.set(lockKeyOf(k), 'other', 'PX', 200);
  await expect(locks.acquire(k, { waitMs: 0 })).rejects.toBeInstanceOf(LockNotAcquiredError);
  expect(locks.heldCount).toBe(0);
});

it('tight acquire/release loops keep the bookkeeping exact', async () => {
  const keys = Array.from({ length: 8 }, key);
  await Promise.all(
    keys.map(async (k) => {
      for (let i = 0; i < 50; i++) {
        // a generous wait: on a loaded machine an acquire can time out on the client and run later, and its
        // key then stands until the library gives it back; this test is about the bookkeeping, not the wait
        const l = await locks.acquire(k, i % 2 ? { leaseMs: 1000, waitMs: 5000 } : { waitMs: 5000 });
        expect(await l.release()).toBe('RELEASED');
      }
    }),
  );
  for (const k of keys) {
    expect(await redis.exists(lockKeyOf(k))).toBe(0);
  }
});

it('locks are not reentrant: a nested acquire of the same key is a new owner and must wait', async () => {
  const k = key();
  await locks.runExclusive(k, { leaseMs: 2000 }, async () => {
    await expect(locks.acquire(k, { leaseMs: 1000, waitMs: 50 })).rejects.toBeInstanceOf(
      LockNotAcquiredError,
    );
  });
});

it('waitMs is honoured: gives up after about the wait, with a retry hint', async () => {
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 5000 });
  const started = performance.now();
  const err = await locks.acquire(k, { leaseMs: 1000, waitMs: 300 }).catch((e: unknown) => e);
  const waited = performance.now() - started;
  expect(err).toBeInstanceOf(LockNotAcquiredError);
  expect(waited).toBeGreaterThanOrEqual(290);
  expect(waited).toBeLessThan(1500);
  expect((err as LockNotAcquiredError).retryAfterMs).toBeGreaterThan(3000);
  await a.release();
});

it('a waiter gets the lock soon after release, without hammering Redis', async () => {
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 5000 });
  const attempts = jest.spyOn(LockScripts.prototype, 'acquire');
  const waiter = locks.acquire(k, { leaseMs: 1000, waitMs: 5000 });
  await sleep(500);
  await a.release();
  const b = await waiter;
  expect(attempts.mock.calls.length).toBeLessThan(20); // backoff: a busy-looping waiter would make hundreds
  attempts.mockRestore();
  await b.release();
});

it('multi-key locks are all-or-none and overlapping sets exclude each other', async () => {
  const ev = randomUUID();
  const a = await locks.acquire([`seat:{${ev}}:A1`, `seat:{${ev}}:A2`], { leaseMs: 5000 });
  await expect(
    locks.acquire([`seat:{${ev}}:A2`, `seat:{${ev}}:A3`], { leaseMs: 5000 }),
  ).rejects.toBeInstanceOf(LockNotAcquiredError);
  expect(await redis.exists(`lock:seat:{${ev}}:A3`)).toBe(0); // nothing half-taken
  const winners = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      locks.tryAcquire([`seat:{${ev}}:B1`, `seat:{${ev}}:B${i + 2}`], { leaseMs: 5000 }),
    ),
  );
  const held = winners.filter((w) => w !== null);
  expect(held).toHaveLength(1);
  await Promise.all([a, ...held].map((l) => l.release()));
});

it('a grant that arrives after the lease could have run out is treated as not acquired', async () => {
  const k = key();
  const slow = await testRedis();
  const svc = lockService(slow);
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the spied instance as this
  const real = LockScripts.prototype.acquire;
  const late = jest.spyOn(LockScripts.prototype, 'acquire').mockImplementation(async function (
    this: LockScripts,
    ...a
  ) {
    const r = await real.apply(this, a);
    await sleep(80); // the reply sits in a buffer while the process is paused
    return r;
  });
  await expect(svc.acquire(k, { leaseMs: 50 })).rejects.toBeInstanceOf(LockNotAcquiredError);
  late.mockRestore();
  expect(svc.heldCount).toBe(0);
  expect(await redis.exists(lockKeyOf(k))).toBe(0);
  await slow.quit();
});

it('fencing tokens strictly increase for every acquisition sharing a hash tag', async () => {
  const ev = randomUUID();
  const tokens: number[] = [];
  for (let i = 0; i < 5; i++) {
    const l = await locks.acquire(`seat:{${ev}}:S${i % 2}`, { leaseMs: 1000 });
    tokens.push(l.fencingToken);
    await l.release();
  }
  expect(tokens).toEqual([...tokens].sort((x, y) => x - y));
  expect(new Set(tokens).size).toBe(5);
  expect(tokens[4] - tokens[0]).toBe(4);
});

it('a paused holder’s late write is rejected by the fence check', async () => {
  // The protected store: accept a write only with a token at least as high as the last one it saw.
  const fenced = new LuaScript(TEST_LUA_DIR, FENCED_WRITE);
  const write = (token: number, value: string) =>
    fenced.run(redis, { store: 'fenced-store' }, { token, value });
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 500 }); // A takes token 33 ...
  // ... and pauses (GC, SIGSTOP) past its lease
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 5000); // the lease ran out in Redis
  const b = await locks.acquire(k, { leaseMs: 5000 });
  expect(await write(b.fencingToken, 'from B')).toBe(1);
  expect(await write(a.fencingToken, 'from A')).toBe(0); // A wakes up and writes: rejected
  expect(await redis.hget('fenced-store', 'value')).toBe('from B');
  expect(a.signal.aborted).toBe(true);
  await b.release();
  await a.release();
});

it('app clock jumps do not affect leases (only Redis TTLs and a monotonic clock are used)', async () => {
  const k = key();
  const now = Date.now();
  const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 3_600_000);
  try {
    const l = await locks.acquire(k, { leaseMs: 2000 });
    await sleep(100);
    expect(l.signal.aborted).toBe(false);
    expect(await l.release()).toBe('RELEASED');
  } finally {
    clock.mockRestore();
  }
});

it('200 concurrent callers in one process are distinct owners, one at a time', async () => {
  const k = key();
  let inside = 0;
  let maxInside = 0;
  const tokens = new Set<number>();
  await Promise.all(
    Array.from({ length: 200 }, () =>
      locks.runExclusive(k, { leaseMs: 5000, waitMs: 30_000 }, async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        tokens.add(currentLock().fencingToken);
        await sleep(1);
        inside--;
      }),
    ),
  );
  expect(maxInside).toBe(1);
  expect(tokens.size).toBe(200);
});

it('the method’s own error wins over a failing release', async () => {
  const k = key();
  const boom = new Error('business failure');
  const failRelease = jest
    .spyOn(LockScripts.prototype, 'release')
    .mockRejectedValueOnce(new Error('connection reset'));
  await expect(
    locks.runExclusive(k, { leaseMs: 300 }, () => {
      throw boom;
    }),
  ).rejects.toBe(boom);
  failRelease.mockRestore();
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 3000); // expires by itself
});

it('onContention skip returns undefined without running', async () => {
  const k = key();
  const a = await locks.acquire(k, { leaseMs: 5000 });
  const ran = jest.fn();
  expect(
    await locks.runExclusive(k, { leaseMs: 1000, onContention: 'skip' }, () => Promise.resolve(ran())),
  ).toBeUndefined();
  expect(ran).not.toHaveBeenCalled();
  await a.release();
});
