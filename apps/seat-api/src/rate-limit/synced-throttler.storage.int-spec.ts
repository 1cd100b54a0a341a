/**
 * SyncedThrottlerStorage's in-memory windows against a real Redis: counts and refusals, and which windows
 * it forgets after a sync (ended, nothing left to send, in least-recently-used order).
 */
import { randomUUID } from 'node:crypto';
import { register } from 'prom-client';
import { testRedisClient } from '@test/support/test-redis';
import { SyncedThrottlerStorage } from './synced-throttler.storage';

const redis = testRedisClient({ keyPrefix: `${process.env.REDIS_KEY_PREFIX ?? ''}rl-spec:` });
let storage: SyncedThrottlerStorage;
/** A caller no other run of this spec uses (the counters live in Redis for two windows). */
let run: string;

beforeEach(() => {
  storage = new SyncedThrottlerStorage(redis);
  run = randomUUID();
});
afterAll(() => redis.quit());

const tracked = async () =>
  (await register.getSingleMetric('rate_limit_tracked_callers')!.get()).values[0].value;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Waits until a fixed window of `ttlMs` has just begun, so a test's counts fall into one window. */
const windowStart = async (ttlMs: number) => sleep(ttlMs - (Date.now() % ttlMs) + 5);

it('counts hits per id and window and refuses past the limit', () => {
  const a = `t:a-${run}`;
  const b = `t:b-${run}`;
  expect(storage.count(a, 3_600_000, 2, 't')).toMatchObject({ totalHits: 1, isBlocked: false });
  expect(storage.count(b, 3_600_000, 2, 't')).toMatchObject({ totalHits: 1, isBlocked: false });
  expect(storage.count(a, 3_600_000, 2, 't')).toMatchObject({ totalHits: 2, isBlocked: false });
  expect(storage.count(a, 3_600_000, 2, 't')).toMatchObject({ totalHits: 2, isBlocked: true });
  expect(storage.count(b, 3_600_000, 2, 't')).toMatchObject({ totalHits: 2, isBlocked: false });
});

it('forgets ended windows after a sync, least recently used first, stopping at one still running', async () => {
  await windowStart(400);
  storage.count(`t:short1-${run}`, 400, 10, 't');
  storage.count(`t:long-${run}`, 3_600_000, 10, 't');
  storage.count(`t:short2-${run}`, 400, 10, 't');
  await storage.sync();
  expect(await tracked()).toBe(3);
  await sleep(450); // both short windows ended
  await storage.sync();
  // short1 is forgotten; long still runs and stops the walk, so short2 (used after it) stays
  expect(await tracked()).toBe(2);
  // a forgotten window starts again at 0 in its new window; one kept counts on
  expect(storage.count(`t:short1-${run}`, 400, 10, 't').totalHits).toBe(1);
  expect(storage.count(`t:long-${run}`, 3_600_000, 10, 't').totalHits).toBe(2);
});

it('makes a window the most recent on each hit', async () => {
  await windowStart(400);
  storage.count(`t:long-${run}`, 3_600_000, 10, 't');
  storage.count(`t:short1-${run}`, 400, 10, 't');
  storage.count(`t:short2-${run}`, 400, 10, 't');
  storage.count(`t:long-${run}`, 3_600_000, 10, 't'); // order short1, short2, long
  await storage.sync();
  expect(await tracked()).toBe(3);
  await sleep(450);
  await storage.sync();
  expect(await tracked()).toBe(1); // both short ones forgotten: long no longer comes first
  expect(storage.count(`t:long-${run}`, 3_600_000, 10, 't').totalHits).toBe(3);
});
