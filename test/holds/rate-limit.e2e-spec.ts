/**
 * Per-caller limits on hold creation and seat-map reads, over real HTTP and a real Redis shared by two
 * instances: 429 RATE_LIMITED with Retry-After in the error envelope, per user (not per address) when a
 * token is sent, and one caller's count shared across instances.
 */
import { SyncedThrottlerStorage } from '../../apps/seat-api/src/rate-limit/synced-throttler.storage';
import { monitorRedis } from '@test/support/redis-monitor';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';

const WINDOW_SECONDS = 3600;
let one: Api;
let two: Api;
let eventId: string;

beforeAll(async () => {
  const env = {
    RATE_LIMIT_ENABLED: 'true',
    RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    RATE_LIMIT_HOLDS_PER_WINDOW: '4',
    RATE_LIMIT_SEAT_MAP_READS_PER_WINDOW: '3',
  };
  one = await startApi(env);
  two = await startApi(env);
  eventId = await createEvent(one, 2, 10);
});
afterAll(async () => {
  await one?.close();
  await two?.close();
});

const hold = async (api: Api, user: string, seat: string) =>
  api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await api.token(user),
    body: { seatIds: [seat], ttlSeconds: 60 },
  });
const seatMap = async (api: Api, user?: string) =>
  api.call('GET', `/v1/events/${eventId}/seats`, user ? { token: await api.token(user) } : {});
const syncBoth = () =>
  Promise.all([one.app.get(SyncedThrottlerStorage).sync(), two.app.get(SyncedThrottlerStorage).sync()]);

/** Windows are fixed (now / window): a run that straddles a boundary counts in two windows, so it is redone. */
async function inOneWindow(body: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const window = Math.floor(Date.now() / 1000 / WINDOW_SECONDS);
    try {
      await body();
      return;
    } catch (e) {
      if (attempt > 0 || Math.floor(Date.now() / 1000 / WINDOW_SECONDS) === window) {
        throw e;
      }
    }
  }
}

function expectRateLimited(r: { status: number; body: any; headers: Headers }) {
  expect(r.status).toBe(429);
  expect(r.body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', requestId: expect.any(String) });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
}

describe('rate limits', () => {
  it('refuse a user past the hold limit with 429 and Retry-After, and nobody else', () =>
    inOneWindow(async () => {
      for (let n = 1; n <= 4; n++) {
        expect((await hold(one, 'rl-alice', `S-A-${n}`)).status).toBe(201);
      }
      const refused = await hold(one, 'rl-alice', 'S-A-5');
      expectRateLimited(refused);
      // a refused request held nothing
      const map = await seatMap(one, 'rl-reader');
      expect(map.body.seats.find((s: { seatId: string }) => s.seatId === 'S-A-5').status).toBe('AVAILABLE');
      // another user from the same address still holds: the limit is per user, not per address
      expect((await hold(one, 'rl-bob', 'S-A-6')).status).toBe(201);
    }));

  it('share one caller count across instances through Redis', () =>
    inOneWindow(async () => {
      expect((await hold(one, 'rl-carol', 'S-B-1')).status).toBe(201);
      expect((await hold(one, 'rl-carol', 'S-B-2')).status).toBe(201);
      await syncBoth();
      expect((await hold(two, 'rl-carol', 'S-B-3')).status).toBe(201);
      expect((await hold(two, 'rl-carol', 'S-B-4')).status).toBe(201);
      await syncBoth();
      // instance two counted 4 itself; instance one learns the shared total at its next sync
      expectRateLimited(await hold(two, 'rl-carol', 'S-B-5'));
      await hold(one, 'rl-carol', 'S-B-6'); // may pass: instance one's view is one sync old
      await syncBoth();
      expectRateLimited(await hold(one, 'rl-carol', 'S-B-7'));
    }));

  it('limit seat-map reads per user', () =>
    inOneWindow(async () => {
      for (let n = 0; n < 3; n++) {
        expect((await seatMap(one, 'rl-dave')).status).toBe(200);
      }
      expectRateLimited(await seatMap(one, 'rl-dave'));
      expect((await seatMap(one, 'rl-erin')).status).toBe(200);
    }));

  it('sync the counts of many callers in one Redis call, not one per caller', async () => {
    // every hold from another user (a sale) must not cost a Redis command per caller per sync interval
    const callers = Array.from({ length: 20 }, (_, i) => `rl-many-${i}`);
    const calls: string[][] = [];
    // commands a client sent, not those a script ran (MONITOR shows both; the latter with source "lua")
    const feed = await monitorRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', (args, source) => {
      if (!source.includes('lua') && args.some((a) => a.includes('rl-many-'))) {
        calls.push(args);
      }
    });
    try {
      const storage = one.app.get(SyncedThrottlerStorage);
      await storage.sync(); // nothing of ours pending
      const ttl = WINDOW_SECONDS * 1000;
      // in one synchronous loop: no sync can start between these (the timer runs between ticks only)
      const first = callers.map((caller) => storage.increment(caller, ttl, 10, ttl, 'holdCreate'));
      expect((await Promise.all(first)).map((r) => r.totalHits)).toEqual(callers.map(() => 1));
      await storage.sync();
      await eventually(
        () => callers.every((c) => calls.some((args) => args.some((a) => a.includes(`{holdCreate:${c}}`)))),
        5000,
        'every caller synced',
      );
      expect(calls).toHaveLength(1);
      // and the shared totals came back: each caller's next hit is its second
      for (const caller of callers) {
        await expect(storage.increment(caller, ttl, 10, ttl, 'holdCreate')).resolves.toMatchObject({
          totalHits: 2,
        });
      }
    } finally {
      feed.stop();
    }
  });
});
