/**
 * Pipelined sections (RunOptions.pipelined): the acquire and the section's owner-checked write leave in
 * one batch, and the write's own script lets go of the lock (HeldLock.letGoInScript), as a hold does. A
 * private redis-server, so round trips can be counted from its `total_reads_processed` and no other
 * test's traffic is mixed in.
 */
import Redis from 'ioredis';
import { LuaScript } from '@app/redis';
import { OWNED_SET, TEST_LUA_DIR } from '@test/support/lua/manifest';
import { Registry } from 'prom-client';
import { startPrivateRedis, PrivateRedis } from '@test/support/private-redis';
import { LockBackendError, HeldLock, LockNotAcquiredError, LockNotOwnedError } from '.';
import { LockScripts } from './lock-scripts';
import { eventually } from '@test/support/eventually';
import { lockService } from '@test/support/distributed-lock';

let server: PrivateRedis;
let redis: Redis;
beforeAll(async () => {
  server = await startPrivateRedis();
  // the service's client setting: commands issued in one tick leave in one write
  redis = new Redis(server.url, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
});

// What a store does: write only while the lock is ours (OWNED_SET). Its key count is passed per call, as
// the lock's own scripts' is.
const OWNED = new LuaScript(TEST_LUA_DIR, OWNED_SET);
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

/** The store's write of a section: owner-checked in Redis, sent at once (same tick). */
function ownedSet(lock: HeldLock, key: string, value: string): Promise<string> {
  const { keys, owner } = lock.ownership;
  return OWNED.run(redis, { data: key, lockKeys: keys }, { owner, value, letGo: '' }) as Promise<string>;
}

/** ownedSet as the section's last write: on OK its script has deleted the lock's keys. */
function letGoWrite(lock: HeldLock, key: string, value: string): Promise<string> {
  const { keys, owner } = lock.ownership;
  return OWNED.run(redis, { data: key, lockKeys: keys }, { owner, value, letGo: '1' }) as Promise<string>;
}

/** letGoWrite, ended by letGoInScript as a section does. */
const lastOwnedSet = (lock: HeldLock, key: string, value: string) =>
  lock.letGoInScript(letGoWrite(lock, key, value), (answer) => answer === 'OK');

/** Counts the lock's release commands. */
function releaseCalls() {
  const spy = jest.spyOn(LockScripts.prototype, 'release');
  return {
    count: () => spy.mock.calls.length,
    restore: () => spy.mockRestore(),
  };
}

/** Reads Redis made from client sockets since the last call (this call's own INFO excluded). */
async function readsSince(previous: number): Promise<[number, number]> {
  const info = await server.client.info('stats');
  const now = Number(/total_reads_processed:(\d+)/.exec(info)![1]);
  return [now - previous - 1, now];
}

const run = (locks: ReturnType<typeof lockService>, key: string, fn: (l: HeldLock) => Promise<string>) =>
  locks.runExclusive(key, { leaseMs: 5000, waitMs: 2000, pipelined: true }, fn);

it('busy: the first write is refused in Redis and lets nothing go; the section runs again once the holder lets go', async () => {
  const lost: string[] = [];
  const registry = new Registry();
  const locks = lockService(redis, { registry, onLockLost: ({ keys }) => lost.push(...keys) });
  const holder = await locks.acquire('busy', { leaseMs: 5000 });
  const release = releaseCalls();
  const answers: string[] = [];
  const tokens: number[] = [];
  const section = run(locks, 'busy', async (lock) => {
    tokens.push(lock.fencingToken);
    const answer = await lastOwnedSet(lock, 'busy-data', `run ${answers.length + 1}`);
    answers.push(answer);
    if (answers.length === 1) {
      // the first run's write reached Redis while the holder had the lock: refused, nothing written, and
      // the holder's lock untouched
      expect(await redis.get('busy-data')).toBeNull();
      expect(await redis.get('lock:{busy}')).toBe(holder.ownership.owner);
      setTimeout(() => void holder.release(), 50);
    }
    return answer;
  });
  await expect(section).resolves.toBe('OK');
  expect(answers).toEqual(['NOT_LOCKED', 'OK']);
  // one release: the holder's own; the section sent none (its second run's write let go)
  expect(release.count()).toBe(1);
  release.restore();
  expect(await redis.exists('lock:{busy}')).toBe(0);
  expect(tokens[0]).toBe(0);
  expect(tokens[1]).toBeGreaterThan(holder.fencingToken); // the second run's grant, known before it ran
  expect(await redis.get('busy-data')).toBe('run 2');
  expect(lost).toEqual([]); // a pipelined acquire that found the lock busy lost nothing
  const metric = await registry.getSingleMetric('distributed_lock_lost_total')?.get();
  expect(metric?.values.reduce((n, v) => n + v.value, 0) ?? 0).toBe(0);
  expect(locks.heldCount).toBe(0);
});

it('busy until the wait runs out: LockNotAcquiredError, nothing written', async () => {
  const locks = lockService(redis);
  const holder = await locks.acquire('stuck', { leaseMs: 5000 });
  let runs = 0;
  const section = locks.runExclusive('stuck', { leaseMs: 5000, waitMs: 100, pipelined: true }, (lock) => {
    runs++;
    return lastOwnedSet(lock, 'stuck-data', 'x');
  });
  await expect(section).rejects.toBeInstanceOf(LockNotAcquiredError);
  expect(runs).toBe(1);
  expect(await redis.get('stuck-data')).toBeNull();
  expect(await holder.release()).toBe('RELEASED'); // the refused section never touched the holder's key
});

it('a section that keeps the lock past its write is tracked while held and released after', async () => {
  const locks = lockService(redis);
  let heldInside = -1;
  let tokenAfterGrant = 0;
  await run(locks, 'long', async (lock) => {
    await ownedSet(lock, 'long-data', 'x'); // its answer comes after the acquire's: the grant is known
    heldInside = locks.heldCount;
    tokenAfterGrant = lock.fencingToken;
    expect(await redis.get('lock:{long}')).toBe(lock.ownership.owner);
    return 'done';
  });
  expect(heldInside).toBe(1);
  expect(tokenAfterGrant).toBeGreaterThan(0);
  expect(await redis.exists('lock:{long}')).toBe(0);
  expect(locks.heldCount).toBe(0);
});

it('the section’s own error wins once the lock was granted, and the lock is let go', async () => {
  const locks = lockService(redis);
  const boom = new Error('business failure');
  await expect(
    run(locks, 'failing', async (lock) => {
      await ownedSet(lock, 'failing-data', 'x');
      throw boom;
    }),
  ).rejects.toBe(boom);
  expect(await redis.exists('lock:{failing}')).toBe(0);
  expect(locks.heldCount).toBe(0);
});

it('an acquire Redis refuses is the answer, whatever the section did', async () => {
  const locks = lockService(redis);
  await redis.lpush('lock:fence:{wrong-type}', 'not a counter'); // the acquire's INCR on a list: a reply error
  const section = run(locks, 'wrong-type', (lock) => lastOwnedSet(lock, 'wt-data', 'x'));
  await expect(section).rejects.toBeInstanceOf(LockBackendError);
  expect(await redis.get('wt-data')).toBeNull(); // the write found no lock of its owner
  expect(locks.heldCount).toBe(0);
});

it('needs a fixed lease', async () => {
  const locks = lockService(redis);
  await expect(
    locks.runExclusive('no-lease', { pipelined: true }, () => Promise.resolve('x')),
  ).rejects.toThrow(/fixed lease/);
});

it('a release that ran before its acquire (reordered on a Cluster) is sent again: nothing leaks, nothing is lost', async () => {
  // On a Cluster, a script missing from a new master's cache is sent again after the rest of the batch,
  // so a release the section sends right behind its write can run before the acquire it follows. Here the
  // first release is made to find nothing (as if it ran first); the lock key the acquire set must still
  // go, without a "lost" report.
  const lost: string[] = [];
  const locks = lockService(redis, { onLockLost: ({ keys }) => lost.push(...keys) });
  const release = jest.spyOn(LockScripts.prototype, 'release');
  release.mockImplementationOnce(() => Promise.resolve(0));
  try {
    await expect(
      run(locks, 'reordered', async (lock) => {
        const written = ownedSet(lock, 'ro-data', 'x');
        await lock.release(); // sent in the same tick as the write, right behind it
        return written;
      }),
    ).resolves.toBe('OK');
  } finally {
    release.mockRestore();
  }
  expect(await redis.exists('lock:{reordered}')).toBe(0);
  expect(lost).toEqual([]);
  expect(locks.heldCount).toBe(0);
});

it('a write refused although the lock was granted (it ran before the acquire) makes the section run again', async () => {
  // What a Cluster does after a failover: the acquire's script, missing from the new master's cache, is
  // sent again after the rest of the batch, so the section's write runs first and is refused. Here the
  // first acquire is held back one tick, so it leaves in the batch after the write and the release.
  const lost: string[] = [];
  const locks = lockService(redis, { onLockLost: ({ keys }) => lost.push(...keys) });
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the spied instance as this
  const send = LockScripts.prototype.acquire;
  const acquire = jest.spyOn(LockScripts.prototype, 'acquire').mockImplementationOnce(function (
    this: LockScripts,
    ...a
  ) {
    return new Promise((r) => setImmediate(() => r(send.apply(this, a))));
  });
  const answers: string[] = [];
  const result = await locks.runExclusive(
    'late-acquire',
    { leaseMs: 5000, waitMs: 2000, pipelined: true },
    async (lock) => {
      const answer = await lastOwnedSet(lock, 'la-data', `run ${answers.length + 1}`);
      answers.push(answer);
      if (answer === 'NOT_LOCKED') {
        throw new LockNotOwnedError(lock.keys); // what the section does when its store refused the write
      }
      return answer;
    },
  );
  acquire.mockRestore();
  expect(result).toBe('OK');
  expect(answers).toEqual(['NOT_LOCKED', 'OK']);
  expect(await redis.get('la-data')).toBe('run 2');
  expect(await redis.exists('lock:{late-acquire}')).toBe(0);
  expect(lost).toEqual([]);
  expect(locks.heldCount).toBe(0);
});

describe('HeldLock.letGoInScript: the last write lets go of the lock in its own script', () => {
  it('acquire and write in one round trip, no release command, nothing left held', async () => {
    const locks = lockService(redis);
    await run(locks, 'rb-warm', (l) => lastOwnedSet(l, 'rb-warm', 'x')); // scripts loaded
    const release = releaseCalls();
    const [, start] = await readsSince(0);
    const tokens: number[] = [];
    for (let i = 0; i < 10; i++) {
      const section = run(locks, `rb-${i}`, (lock) => {
        tokens.push(lock.fencingToken); // not known yet: the store takes the counter's value
        return lastOwnedSet(lock, `rb-data-${i}`, 'w');
      });
      await expect(section).resolves.toBe('OK');
    }
    const [reads] = await readsSince(start);
    expect(release.count()).toBe(0);
    release.restore();
    expect(reads).toBe(10);
    expect(tokens).toEqual(Array(10).fill(0));
    expect(await redis.mget(Array.from({ length: 10 }, (_, i) => `rb-data-${i}`))).toEqual(
      Array(10).fill('w'),
    );
    expect(await redis.keys('lock:{rb-*')).toEqual([]);
    expect(locks.heldCount).toBe(0);
  });

  it('a write that failed: the lock is released as usual and the write’s error is the answer', async () => {
    const locks = lockService(redis);
    await redis.set('rb-not-a-list', 'x');
    const section = run(locks, 'rb-failed', async (lock) => {
      const written = lock.letGoInScript(redis.lpush('rb-not-a-list', 'y').then(String), () => true);
      await expect(written).rejects.toThrow(/WRONGTYPE/);
      // released by letGoInScript itself, before it settled (not by the runner after the section)
      expect(await redis.exists('lock:{rb-failed}')).toBe(0);
      return 'checked';
    });
    await expect(section).resolves.toBe('checked');
    expect(await redis.exists('lock:{rb-failed}')).toBe(0);
    expect(locks.heldCount).toBe(0);
  });

  it('an answer that says the write did not let go: the lock is released as usual', async () => {
    const locks = lockService(redis);
    const release = releaseCalls();
    const answer = await locks.runExclusive('rb-kept', { leaseMs: 5000 }, async (lock) => {
      const written = await lock.letGoInScript(ownedSet(lock, 'rb-kept-data', 'v'), () => false);
      // released by letGoInScript itself, before it settled (not by the runner after the section)
      expect(await redis.exists('lock:{rb-kept}')).toBe(0);
      return written;
    });
    expect(answer).toBe('OK');
    expect(release.count()).toBe(1);
    release.restore();
    expect(await redis.exists('lock:{rb-kept}')).toBe(0);
    expect(locks.heldCount).toBe(0);
  });

  it('wakes this process’s waiters on the keys the write let go', async () => {
    const registry = new Registry();
    const locks = lockService(redis, { registry });
    let letGo!: () => void;
    let holding!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    const held = new Promise<void>((r) => (holding = r));
    const first = locks.runExclusive('rb-wake', { leaseMs: 10_000 }, async (lock) => {
      holding();
      await gate;
      return lastOwnedSet(lock, 'rb-wake-data', 'first');
    });
    await held;
    const second = locks.runExclusive('rb-wake', { leaseMs: 10_000, waitMs: 8000 }, (lock) =>
      lastOwnedSet(lock, 'rb-wake-data', 'second'),
    );
    // the second has found the lock busy and waits
    const contention = async () =>
      (await registry.getSingleMetric('distributed_lock_contention_total')?.get())?.values.reduce(
        (n, v) => n + v.value,
        0,
      ) ?? 0;
    await eventually(async () => (await contention()) >= 1, 5000, 'the second acquire found the lock busy');
    letGo();
    await expect(first).resolves.toBe('OK');
    await expect(second).resolves.toBe('OK');
    expect(await redis.get('rb-wake-data')).toBe('second');
    // the waiter's wait ended with the wake, not with its timer (the holder is in this process: it
    // waits for the wake, as long as the wait allows)
    const waits = await registry.getSingleMetric('distributed_lock_waits_total')?.get();
    expect(Object.fromEntries(waits!.values.map((v) => [v.labels.ended, v.value]))).toEqual({ woken: 1 });
    expect(locks.heldCount).toBe(0);
  });

  it('a write whose script let go but whose answer was lost: no lock reported lost', async () => {
    const lost: string[] = [];
    const locks = lockService(redis, { onLockLost: ({ keys }) => lost.push(...keys) });
    const section = run(locks, 'rb-lost-answer', (lock) => {
      const write = letGoWrite(lock, 'rb-lost-answer-data', 'v').then(() =>
        Promise.reject(new Error('the answer did not arrive')),
      ); // as a command timeout would
      return lock.letGoInScript(write, () => true);
    });
    await expect(section).rejects.toThrow('the answer did not arrive');
    expect(await redis.get('rb-lost-answer-data')).toBe('v');
    expect(await redis.exists('lock:{rb-lost-answer}')).toBe(0);
    expect(lost).toEqual([]);
    expect(locks.heldCount).toBe(0);
  });

  it('a shutdown that releases the lock before the write’s answer is read: no lock reported lost', async () => {
    const lost: string[] = [];
    const locks = lockService(redis, { onLockLost: ({ keys }) => lost.push(...keys) });
    const section = run(locks, 'rb-shutdown', (lock) => {
      // a few hops between the script's answer and letGoInScript, as a store's parsing makes
      const write = letGoWrite(lock, 'rb-shutdown-data', 'v')
        .then((answer) => answer)
        .then((answer) => answer)
        .then((answer) => answer);
      return lock.letGoInScript(write, (answer) => answer === 'OK');
    });
    const shutdown = locks.onApplicationShutdown(); // same tick: it waits for the acquire, then releases
    await expect(section).resolves.toBe('OK');
    await shutdown;
    expect(await redis.exists('lock:{rb-shutdown}')).toBe(0);
    expect(lost).toEqual([]);
  });
});
