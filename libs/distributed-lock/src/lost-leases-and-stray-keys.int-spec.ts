/**
 * Lost leases and stray keys against a real Redis: locks the watchdog finds lost, a lock key set by
 * someone else, validity checks once a lease ran out (also in a holder paused past it), and acquires that
 * land during shutdown, fail half-way or are sent again.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import Redis from 'ioredis';
import { Registry } from 'prom-client';
import { LockBackendError, HeldLock, LockLostError, LockNotAcquiredError } from '.';
import { DistributedLockService } from './distributed-lock.service';
import { LockScripts } from './lock-scripts';
import { eventually } from '@test/support/eventually';
import { lockService, testRedis, LOCK_HOLDERS } from '@test/support/distributed-lock';

let redis: Redis;
const services: DistributedLockService[] = [];
const lockKeyOf = (k: string) => (k.includes('{') ? `lock:${k}` : `lock:{${k}}`);

function service(...a: Parameters<typeof lockService> extends [unknown, ...infer R] ? R : never) {
  const s = lockService(redis, ...a);
  services.push(s);
  return s;
}

beforeAll(async () => {
  redis = await testRedis();
});
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.onApplicationShutdown()));
});
afterAll(() => redis.quit());

/** Resolves after the watchdog has sent `n` more renewal batches (a real wait on the real calls). */
function renewalsSent(): () => number {
  const spy = jest.spyOn(LockScripts.prototype, 'renew');
  return () => spy.mock.calls.length;
}

it('the watchdog declares exactly the lost locks lost, wherever they sit in the batch', async () => {
  const lost: string[] = [];
  const svc = service({ watchdogLeaseMs: 300, onLockLost: ({ keys }) => lost.push(keys.join(',')) });
  const [t1, t2] = [randomUUID(), randomUUID()];
  // Acquired in this order, so each tag's batch lists them in this order. Multi-key, several per tag.
  const spec: Record<string, string[]> = {
    lostFirstKey: [`seat:{${t1}}:A1`, `seat:{${t1}}:A2`], // A1 taken by another owner, A2 still ours
    healthyA: [`seat:{${t1}}:B1`],
    healthyMulti: [`seat:{${t1}}:C1`, `seat:{${t1}}:C2`, `seat:{${t1}}:C3`],
    lostDeleted: [`seat:{${t1}}:D1`], // key gone (eviction, flush)
    healthyB: [`seat:{${t1}}:E1`],
    lostLastKey: [`seat:{${t1}}:F1`, `seat:{${t1}}:F2`], // F2 taken
    healthyC: [`seat:{${t1}}:G1`, `seat:{${t1}}:G2`],
    otherTagHealthy: [`seat:{${t2}}:A1`],
    otherTagLost: [`seat:{${t2}}:B1`, `seat:{${t2}}:B2`, `seat:{${t2}}:B3`], // B2 taken
    otherTagHealthyMulti: [`seat:{${t2}}:C1`, `seat:{${t2}}:C2`],
  };
  const handles: Record<string, HeldLock> = {};
  for (const [name, keys] of Object.entries(spec)) {
    handles[name] = await svc.acquire(keys); // no lease: the watchdog keeps it
  }
  const lostNames = ['lostFirstKey', 'lostDeleted', 'lostLastKey', 'otherTagLost'];
  const healthyNames = Object.keys(spec).filter((n) => !lostNames.includes(n));

  // one atomic change, so a renewal batch sees all of it or none of it
  await redis
    .multi()
    .set(lockKeyOf(`seat:{${t1}}:A1`), 'intruder', 'PX', 60_000)
    .del(lockKeyOf(`seat:{${t1}}:D1`))
    .set(lockKeyOf(`seat:{${t1}}:F2`), 'intruder', 'PX', 60_000)
    .set(lockKeyOf(`seat:{${t2}}:B2`), 'intruder', 'PX', 60_000)
    .exec();

  await eventually(() => lostNames.every((n) => handles[n].signal.aborted), 5000, 'lost locks aborted');
  const sent = renewalsSent();
  await eventually(() => sent() >= 4, 5000, 'two more renewal rounds'); // 2 tags x 2 rounds

  expect(lost.sort()).toEqual(lostNames.map((n) => spec[n].join(',')).sort());
  for (const n of lostNames) {
    expect(() => handles[n].assertValid()).toThrow(LockLostError); // no validity extended for them
  }
  for (const n of healthyNames) {
    expect([n, handles[n].signal.aborted]).toEqual([n, false]);
    expect(() => handles[n].assertValid()).not.toThrow();
    for (const k of spec[n]) {
      expect(await redis.pttl(lockKeyOf(k))).toBeGreaterThan(0); // still ours and still renewed
    }
  }
  // another owner's keys were not touched by our renewals
  expect(await redis.pttl(lockKeyOf(`seat:{${t1}}:A1`))).toBeGreaterThan(30_000);
  expect(await redis.get(lockKeyOf(`seat:{${t2}}:B2`))).toBe('intruder');
  for (const n of healthyNames) {
    expect(await handles[n].release()).toBe('RELEASED');
  }
  for (const n of lostNames) {
    expect(await handles[n].release()).toBe('NOT_HELD');
  }
  expect(svc.heldCount).toBe(0);
});

it('a lock key someone SET without expiry counts as held, never as free', async () => {
  const svc = service();
  const k = `test:${randomUUID()}`;
  await redis.set(lockKeyOf(k), 'set-by-hand'); // no PX: PTTL answers -1
  const err = await svc.acquire(k, { leaseMs: 1000, waitMs: 50 }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(LockNotAcquiredError);
  expect((err as LockNotAcquiredError).retryAfterMs).toBeGreaterThan(0);
  const ran = jest.fn();
  const skipped = await svc.runExclusive(k, { leaseMs: 1000, onContention: 'skip' }, () =>
    Promise.resolve(ran()),
  );
  expect(skipped).toBeUndefined();
  expect(ran).not.toHaveBeenCalled();
  // all-or-none: a multi-key lock with one key held forever takes none of its keys
  const ev = randomUUID();
  await redis.set(lockKeyOf(`seat:{${ev}}:A2`), 'set-by-hand');
  expect(await svc.tryAcquire([`seat:{${ev}}:A1`, `seat:{${ev}}:A2`], { leaseMs: 1000 })).toBeNull();
  expect(await redis.exists(lockKeyOf(`seat:{${ev}}:A1`))).toBe(0);
  expect(await redis.get(lockKeyOf(k))).toBe('set-by-hand');
  expect(await redis.pttl(lockKeyOf(k))).toBe(-1);
  expect(svc.heldCount).toBe(0);
});

async function total(registry: Registry, name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  return metric ? (await metric.get()).values.reduce((n, v) => n + v.value, 0) : 0;
}

it('assertValid() refuses a write once the lease ran out, counted at the check', async () => {
  const registry = new Registry();
  const svc = service({ registry });
  const k = `test:${randomUUID()}`;
  const a = await svc.acquire(k, { leaseMs: 500 });
  a.assertValid(); // within its lease: passes and counts nothing
  expect(await total(registry, 'distributed_lock_validity_refused_total')).toBe(0);
  // A does nothing (a pause) until Redis has let its lease go and B holds the key
  await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 3000, 'lease expired in Redis');
  const b = await svc.acquire(k, { leaseMs: 5000 });
  expect(() => a.assertValid()).toThrow(LockLostError);
  expect(a.signal.aborted).toBe(true);
  expect(await total(registry, 'distributed_lock_validity_refused_total')).toBe(1);
  expect(await total(registry, 'distributed_lock_lost_total')).toBe(1); // now, before any release
  expect(() => a.assertValid()).toThrow(LockLostError);
  expect(await total(registry, 'distributed_lock_validity_refused_total')).toBe(2); // every refused write
  expect(await a.release()).toBe('NOT_HELD');
  expect(await total(registry, 'distributed_lock_lost_total')).toBe(1); // not counted again at release
  expect(await b.release()).toBe('RELEASED');
});

it('assertValid() keeps a safety margin before the lease ends', async () => {
  const registry = new Registry();
  const svc = service({ registry, validityMarginMs: 10_000 });
  const k = `test:${randomUUID()}`;
  const a = await svc.acquire(k, { leaseMs: 5000 }); // less than the margin: never safe to write
  expect(() => a.assertValid()).toThrow(LockLostError);
  expect(await redis.exists(lockKeyOf(k))).toBe(1); // Redis still has it: the margin refused, not Redis
  expect(await a.release()).toBe('RELEASED'); // still ours in Redis: the release frees it at once
  const b = await svc.acquire(k, { leaseMs: 5000 });
  expect(() => b.assertValid({ marginMs: 0 })).not.toThrow(); // a caller may choose its own margin
  expect(await b.release()).toBe('RELEASED');
  expect(() => b.assertValid({ marginMs: 0 })).toThrow(LockLostError); // released: no longer ours to write
});

it('a holder paused with SIGSTOP past its lease checks validity and does not write', async () => {
  const k = `test:${randomUUID()}`;
  const storeKey = `store:${randomUUID()}`;
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', path.join(LOCK_HOLDERS, 'paused-writer.ts'), k, '300', storeKey],
    { env: process.env, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    await eventually(() => out.includes('locked') || child.exitCode !== null, 30_000, 'child locked');
    expect(out).toContain('locked');
    child.kill('SIGSTOP');
    await eventually(async () => (await redis.exists(lockKeyOf(k))) === 0, 5000, 'lease expired in Redis');
    const svc = service();
    const b = await svc.acquire(k, { leaseMs: 5000 });
    await redis.set(storeKey, 'from B');
    child.kill('SIGCONT');
    child.stdin.end('write\n');
    await eventually(() => out.includes('metrics'), 10_000, 'child checked and reported');
    expect(out).toContain('outcome refused LockLostError');
    const metrics = JSON.parse(out.split('metrics ')[1].split('\n')[0]) as Record<string, number>;
    expect(metrics).toEqual({ refused: 1, lost: 1 });
    expect(await redis.get(storeKey)).toBe('from B');
    expect(await b.release()).toBe('RELEASED');
    await eventually(() => child.exitCode !== null, 10_000, 'child exited');
    expect(child.exitCode).toBe(0);
  } finally {
    child.kill('SIGKILL');
  }
});

it('a lock granted while the service shuts down is given back, not left held after shutdown', async () => {
  // A periodic job's tick can send its acquire just as the app closes (CI found a lock held after
  // close()). The acquire below is on the wire when shutdown begins: its grant must be released in
  // Redis and the caller told the service is closing, and nothing may be held once shutdown is done.
  const svc = lockService(redis); // shut down by this test, not by afterEach
  const k = `test:${randomUUID()}`;
  const acquiring = svc.acquire(k, { leaseMs: 30_000 });
  // twice at once (two shutdown paths): both must end once the acquire has settled
  await Promise.all([svc.onApplicationShutdown(), svc.onApplicationShutdown()]);
  await expect(acquiring).rejects.toThrow(/shutting down/);
  expect(svc.heldCount).toBe(0);
  expect(await redis.exists(lockKeyOf(k))).toBe(0);
  // and after shutdown no lock is taken at all
  await expect(svc.acquire(k, { leaseMs: 30_000 })).rejects.toBeInstanceOf(LockBackendError);
  expect(await redis.exists(lockKeyOf(k))).toBe(0);
});

it('an acquire whose fencing counter Redis cannot increment leaves no lock key behind', async () => {
  // A Lua script that fails midway keeps what it wrote: the counter is moved before any lock key is set
  const svc = service();
  const k = `test:${randomUUID()}`;
  await redis.lpush(`lock:fence:{${k}}`, 'not a counter');
  await expect(svc.acquire(k, { leaseMs: 30_000 })).rejects.toBeInstanceOf(LockBackendError);
  expect(await redis.exists(lockKeyOf(k))).toBe(0);
  await redis.del(`lock:fence:{${k}}`);
});

it('an acquire sent again after it ran (a reconnect, a failover) takes its own keys again, never busy', async () => {
  // ioredis re-sends unanswered commands after a reconnect; the script may already have run. Answering busy
  // would throw away a pipelined section's owner-checked write, which passes (pipelined.int-spec.ts).
  const k = `test:${randomUUID()}`;
  const scripts = new LockScripts(redis);
  const first = await scripts.acquire(`lock:fence:{${k}}`, [lockKeyOf(k)], 'owner-1', 30_000);
  const again = await scripts.acquire(`lock:fence:{${k}}`, [lockKeyOf(k)], 'owner-1', 30_000);
  expect(first[0]).toBe(1);
  expect(again[0]).toBe(1);
  expect(Number(again[1])).toBeGreaterThan(Number(first[1]));
  // anyone else still finds it busy
  expect((await scripts.acquire(`lock:fence:{${k}}`, [lockKeyOf(k)], 'owner-2', 30_000))[0]).toBe(0);
  expect(await scripts.release([lockKeyOf(k)], 'owner-1')).toBe(1);
});
