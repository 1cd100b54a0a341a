/**
 * The change log every seat-changing script writes for seat-map readers, against a real Redis: one new
 * version per script that changed seats (none for refusals and reads), each entry carrying the changed
 * seats' new states, and the per-event counts. The decisive check replays the log of a random history
 * from version 0 and compares it with the seat states Redis holds (SEAT_STATES in test/support/hold-store.ts, the full-scan oracle).
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { eventually } from '@test/support/eventually';
import { createHold, seatStates, untilRedisTimePasses } from '@test/support/hold-store';
import { HoldStore } from './hold.store';
import { eventIdsInDistinctShards } from '@test/support/shard-events';
import { HoldLayout } from './hold-keys';

const newEventId = eventIdsInDistinctShards(new HoldLayout(loadConfig().holds.shards));

const config = loadConfig();
let redis: Redis;
let store: HoldStore;

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  store = new HoldStore(redis, config, new DistributedLockService({ redis, keyPrefix: 'lock:' }));
});
afterAll(() => redis.quit());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Entry {
  version: number;
  seats: Record<string, string>;
}
async function log(eventId: string): Promise<Entry[]> {
  const entries = await redis.xrange(store.layout.eventKeys(eventId).changes, '-', '+');
  return entries.map(([id, fields]) => {
    const seats: Record<string, string> = {};
    for (let i = 0; i < fields.length; i += 2) {
      seats[fields[i]] = fields[i + 1];
    }
    return { version: Number(id.split('-')[0]), seats };
  });
}
/** The seat-map fields of the event's meta hash (its hold-bucket fields hl / hp / hn left out). */
const meta = async (eventId: string) =>
  Object.fromEntries(
    Object.entries(await redis.hgetall(store.layout.eventKeys(eventId).meta)).filter(([k]) =>
      ['v', 'held', 'booked'].includes(k),
    ),
  );
const redisNow = async () => {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
};

/** Each seat's latest code in the log. */
function replayCodes(entries: Entry[]): Map<string, string> {
  const latest = new Map<string, string>();
  for (const e of entries) {
    for (const [seat, code] of Object.entries(e.seats)) {
      latest.set(seat, code);
    }
  }
  return latest;
}

/** What a reader makes of the log: HELD until expireAt ('H<ms>'), or for good while confirming ('H0'). */
function replay(entries: Entry[], nowMs: number): Map<string, string> {
  const latest = replayCodes(entries);
  const states = new Map<string, string>();
  for (const [seat, code] of latest) {
    if (code === 'B') {
      states.set(seat, 'BOOKED');
    } else if (code.startsWith('H') && (code === 'H0' || Number(code.slice(1)) > nowMs)) {
      states.set(seat, 'HELD');
    }
  }
  return states;
}

/**
 * The log replayed at Redis time equals SEAT_STATES. The two are read by separate commands, so a hold may
 * lapse between them: a mismatch is read again (twice at most) before it counts; a real one persists.
 */
async function expectReplayMatches(eventId: string, step: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const [states, entries, now] = await Promise.all([seatStates(store, eventId), log(eventId), redisNow()]);
    const replayed = Object.fromEntries(replay(entries, now));
    const versions = entries.map((e) => e.version);
    expect(versions).toEqual(versions.map((_, i) => i + 1));
    expect(Number((await meta(eventId)).v)).toBe(versions.length);
    if (attempt === 2 || JSON.stringify(replayed) === JSON.stringify(Object.fromEntries(states))) {
      expect([step, replayed]).toEqual([step, Object.fromEntries(states)]);
      return;
    }
  }
}

const hold = (eventId: string, seatIds: string[], user = 'alice', ttlMs = 60_000) =>
  createHold(store, eventId, seatIds, { user, ttlMs, maxLifetimeMs: 600_000, limit: 100, fence: 0 });

describe('change log', () => {
  it('records each change as a new version with the seats new states, and keeps the counts', async () => {
    const eventId = newEventId();
    const h = await hold(eventId, ['A-1', 'A-2']);
    if (!h.ok) {
      throw new Error(h.error);
    }
    const { holdId, expireAtMs } = h.hold;
    expect(await log(eventId)).toEqual([
      { version: 1, seats: { 'A-1': `H${expireAtMs}`, 'A-2': `H${expireAtMs}` } },
    ]);
    expect(await meta(eventId)).toEqual({ v: '1', held: '2' });

    // refusals and reads change nothing, so they record nothing
    expect((await hold(eventId, ['A-2', 'A-3'], 'bob')).ok).toBe(false);
    await store.getHold(holdId);
    await seatStates(store, eventId);
    expect((await meta(eventId)).v).toBe('1');

    const ext = await store.extendHold({
      holdId,
      userId: 'alice',
      ttlMs: 90_000,
      maxExtensions: 3,
      fencingToken: 0,
    });
    const extended = ext.ok ? ext.hold.expireAtMs : 0;
    const begun = await store.beginConfirm({
      holdId,
      userId: 'alice',
      orderId: 'o-1',
      fencingToken: 0,
      confirmTimeoutMs: 30_000,
    });
    expect(begun.ok).toBe(true);
    await store.abandonConfirm({ holdId, fencingToken: 0 });
    await store.beginConfirm({
      holdId,
      userId: 'alice',
      orderId: 'o-2',
      fencingToken: 0,
      confirmTimeoutMs: 30_000,
    });
    await store.finishConfirm({ holdId, orderId: 'o-2' });
    expect((await log(eventId)).slice(1)).toEqual([
      { version: 2, seats: { 'A-1': `H${extended}`, 'A-2': `H${extended}` } },
      // while confirming a seat stays HELD whatever the time: 'H0'
      { version: 3, seats: { 'A-1': 'H0', 'A-2': 'H0' } },
      { version: 4, seats: { 'A-1': `H${extended}`, 'A-2': `H${extended}` } },
      { version: 5, seats: { 'A-1': 'H0', 'A-2': 'H0' } },
      { version: 6, seats: { 'A-1': 'B', 'A-2': 'B' } },
    ]);
    expect(await meta(eventId)).toEqual({ v: '6', held: '0', booked: '2' });

    const b = await hold(eventId, ['B-1'], 'bob');
    await store.releaseHold({ holdId: b.ok ? b.hold.holdId : '', userId: 'bob', fencingToken: 0 });
    const lapsing = await hold(eventId, ['C-1', 'C-2'], 'carol', 20);
    await untilRedisTimePasses(redis, lapsing.ok ? lapsing.hold.expireAtMs : 0); // the sweep's clock
    expect((await store.sweepShard(store.layout.shardOf(eventId), 100)).expiredSeats).toBe(2);
    expect(await store.markBooked(eventId, ['D-1', 'A-1'])).toBe(1);
    const tail = (await log(eventId)).slice(6).map((e) => e.seats);
    expect(tail).toEqual([
      { 'B-1': expect.stringMatching(/^H\d+$/) },
      { 'B-1': 'A' },
      { 'C-1': expect.stringMatching(/^H\d+$/), 'C-2': expect.stringMatching(/^H\d+$/) },
      { 'C-1': 'A', 'C-2': 'A' },
      { 'D-1': 'B' },
    ]);
    expect(await meta(eventId)).toEqual({ v: '11', held: '0', booked: '3' });
  });

  it('replays to the seat states Redis holds, after a random history of every kind of change', async () => {
    const eventId = newEventId();
    const seats = Array.from({ length: 40 }, (_, i) => `S-${i + 1}`);
    let live: { holdId: string; user: string }[] = [];
    const succeeded: Record<string, number> = {};
    let confirmingSeen = 0;
    let seed = 42;
    /** mulberry32: a fixed seed, so a failure replays the same history */
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
    const tally = (what: string, ok: boolean) => {
      succeeded[what] = (succeeded[what] ?? 0) + (ok ? 1 : 0);
    };
    for (let step = 0; step < 500; step++) {
      const op = rand(10);
      const target = live.length > 0 ? live[rand(live.length)] : undefined;
      if (op <= 2 || !target) {
        const picked = [...new Set([seats[rand(40)], seats[rand(40)], seats[rand(40)]])];
        const r = await hold(eventId, picked, `u${rand(4)}`, op === 0 ? 60_000 : 5 + rand(60));
        tally('hold', r.ok);
        if (r.ok) {
          live.push({ holdId: r.hold.holdId, user: r.hold.userId });
        }
      } else if (op === 3) {
        const r = await store.extendHold({
          holdId: target.holdId,
          userId: target.user,
          ttlMs: rand(2) === 0 ? 5 + rand(30) : 60_000,
          maxExtensions: 100,
          fencingToken: 0,
        });
        tally('extend', r.ok);
      } else if (op === 4) {
        tally(
          'release',
          (await store.releaseHold({ holdId: target.holdId, userId: target.user, fencingToken: 0 })).ok,
        );
      } else if (op === 5 || op === 6) {
        const r = await store.beginConfirm({
          holdId: target.holdId,
          userId: target.user,
          orderId: `o${step}`,
          fencingToken: 0,
          confirmTimeoutMs: 1 + rand(40),
        });
        tally('beginConfirm', r.ok);
      } else if (op === 7) {
        const read = await store.getHold(target.holdId);
        if (read?.status === 'CONFIRMING' && read.orderId) {
          const r = await (rand(3) === 0
            ? store.finishConfirm({ holdId: target.holdId, orderId: read.orderId })
            : store.abandonConfirm({ holdId: target.holdId, fencingToken: read.fencingToken }));
          tally('finishOrAbandon', r.ok);
        }
      } else if (op === 8) {
        tally('sweep', (await store.sweepShard(store.layout.shardOf(eventId), 1 + rand(5))).expiredSeats > 0);
      } else if (rand(3) === 0) {
        tally('markBooked', (await store.markBooked(eventId, [seats[rand(40)]])) > 0);
      }
      if (step % 25 === 24) {
        await expectReplayMatches(eventId, step);
        const latest = replayCodes(await log(eventId));
        confirmingSeen += [...latest.values()].filter((c) => c === 'H0').length;
        // ended holds leave the pool, so the operations keep meeting live ones
        const reads = await Promise.all(live.map((h) => store.getHold(h.holdId)));
        live = live.filter((_, i) => ['ACTIVE', 'CONFIRMING'].includes(reads[i]?.status ?? ''));
      }
      await sleep(rand(3));
    }
    // Whether the sweeper or a later script's lazy check frees a lapsed hold first is a matter of timing
    // (a loaded machine runs the steps slower), so the sweeper's path is made certain once: a hold on a seat
    // of its own that lapses, swept until the sweep frees it, and the log replayed again.
    if (!succeeded.sweep) {
      const lapsing = await hold(eventId, ['S-sweep'], 'u-sweep', 1);
      expect(lapsing.ok).toBe(true);
      await eventually(
        async () => (await store.sweepShard(store.layout.shardOf(eventId), 100)).expiredSeats > 0,
        5_000,
        'the sweeper frees a lapsed hold',
      );
      tally('sweep', true);
      await expectReplayMatches(eventId, 500);
    }
    // the history met every kind of change, confirms in flight at checkpoints included
    for (const what of [
      'hold',
      'extend',
      'release',
      'beginConfirm',
      'finishOrAbandon',
      'sweep',
      'markBooked',
    ]) {
      expect([what, (succeeded[what] ?? 0) > 0]).toEqual([what, true]);
    }
    expect(confirmingSeen).toBeGreaterThan(0);
    // the counts are the raw hash's: 'H' seats (lapsed or not) and 'B' seats
    const raw = await redis.hgetall(store.layout.eventKeys(eventId).seats);
    const m = await meta(eventId);
    const count = (c: string) => Object.values(raw).filter((v) => v.startsWith(c)).length;
    expect([Number(m.held ?? 0), Number(m.booked ?? 0)]).toEqual([count('H|'), count('B|')]);
  });
});
