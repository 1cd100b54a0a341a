/**
 * The on-sale queue against a real Redis (lua/queue.lua and its scripts): one place per user whatever the
 * races, a shuffle before the start and strict arrival order after, admission at the pace and never past
 * the cap, passes that run out, a shopper's turn ended by the same step that ends their last hold, the
 * gate on holds, and idle entries passed over. Times are Redis's: the queue opens and starts in the past.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import {
  createHold,
  newHoldEventIds,
  openHoldStore,
  redisNowMs,
  untilRedisTimePasses,
} from '@test/support/hold-store';
import { HoldIds } from './hold-ids';
import { HoldStore } from './hold.store';
import { QueueSettings, QueueStore } from './queue.store';

const newEventId = newHoldEventIds();
const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;
let queue: QueueStore;
let actions = 0;

beforeAll(() => {
  ({ redis, locks, store } = openHoldStore(config));
  queue = new QueueStore(store, redis, config);
});
afterAll(() => redis.quit());

const staff = () => ({
  id: `action-${++actions}`,
  actor: 'admin-1',
  action: 'QUEUE_CONFIGURE',
  target: 'queue',
});

/** The fencing counter of the event's seat locks above the tokens these tests present. */
const fenced = (eventId: string) =>
  redis.set(locks.fenceKey(store.layout.tagOf(store.layout.shardOf(eventId))), 100);

/** A queue set up to open now-ish (Redis time) and start `startInMs` later. */
async function setUp(eventId: string, o: Partial<QueueSettings> & { startInMs?: number } = {}) {
  await fenced(eventId);
  const now = await redisNowMs(redis);
  const settings: QueueSettings = {
    opensAtMs: now + 50,
    salesStartAtMs: now + 50 + (o.startInMs ?? 0),
    order: 'fifo',
    admitPerMinute: 600,
    maxActiveShoppers: 100,
    passTtlMs: 60_000,
    idleEntryTtlMs: 60_000,
    ...o,
  };
  const r = await queue.configure(eventId, settings, staff());
  expect(r.ok).toBe(true);
  await untilRedisTimePasses(redis, settings.opensAtMs);
  return settings;
}

const holdWith = (
  eventId: string,
  user: string,
  seatIds: string[],
  admission?: { entry: string; pass: string },
) =>
  store.createHold({
    eventId,
    holdId: HoldIds.generate(eventId),
    userId: user,
    seatIds,
    ttlMs: 60_000,
    maxLifetimeMs: 120_000,
    maxSeatsPerUser: 10,
    fencingToken: 1,
    admission,
  });

/** Admits by stepping until `n` more shoppers are in, or `tries` steps passed. */
async function stepUntil(eventId: string, done: (active: number) => boolean, tries = 200) {
  for (let i = 0; i < tries; i++) {
    const s = await queue.step(eventId);
    if (s && done(s.figures.activeShoppers)) {
      return s.figures;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('queue did not get there');
}

it('gives one place per user, however many joins race', async () => {
  const eventId = newEventId();
  await setUp(eventId);
  const joins = await Promise.all(Array.from({ length: 100 }, () => queue.join(eventId, 'racer')));
  const entries = new Set(joins.map((j) => (j.ok ? j.entry.entryId : 'refused')));
  expect([...entries]).toEqual([queue.entryIdOf(eventId, 'racer')]);
  expect(joins.filter((j) => j.ok && j.created)).toHaveLength(1);
  expect((await queue.step(eventId))!.figures.lastNumber).toBe(1);
});

it('refuses joining before it opens, and answers no queue for an event without one', async () => {
  const eventId = newEventId();
  const now = await redisNowMs(redis);
  await queue.configure(
    eventId,
    {
      opensAtMs: now + 60_000,
      salesStartAtMs: now + 120_000,
      order: 'fifo',
      admitPerMinute: 60,
      maxActiveShoppers: 10,
      passTtlMs: 60_000,
      idleEntryTtlMs: 60_000,
    },
    staff(),
  );
  expect(await queue.join(eventId, 'early')).toEqual({
    ok: false,
    error: 'NOT_OPEN',
    opensAtMs: now + 60_000,
  });
  expect(await queue.join(newEventId(), 'anyone')).toEqual({ ok: false, error: 'NO_QUEUE' });
});

it('admits in arrival order at the pace, never past the cap, and the gate takes only an issued pass', async () => {
  const eventId = newEventId();
  await setUp(eventId, { admitPerMinute: 6000, maxActiveShoppers: 3 });
  const users = ['u1', 'u2', 'u3', 'u4', 'u5'];
  for (const u of users) {
    await queue.join(eventId, u);
  }
  const figures = await stepUntil(eventId, (active) => active === 3);
  expect(figures.servingNumber).toBe(3);
  // the cap holds: more steps admit nobody
  await new Promise((r) => setTimeout(r, 100));
  expect((await queue.step(eventId))!.figures.activeShoppers).toBe(3);
  const first = await queue.entry(queue.entryIdOf(eventId, 'u1'), 'u1');
  expect(first!.entry).toMatchObject({ state: 'ADMITTED', number: 1 });
  const fourth = await queue.entry(queue.entryIdOf(eventId, 'u4'), 'u4');
  expect(fourth!.entry).toMatchObject({ state: 'WAITING', number: 4 });

  // no pass while the queue is open: refused; a pass the service did not issue: refused
  expect(await holdWith(eventId, 'u1', ['Q-1'])).toMatchObject({ ok: false, error: 'QUEUE_REQUIRED' });
  const entry = first!.entry.entryId.slice(32);
  expect(await holdWith(eventId, 'u1', ['Q-1'], { entry, pass: 'forged' })).toMatchObject({
    ok: false,
    error: 'ADMISSION_INVALID',
  });
  const pass = (await queue.keepPass(first!.entry.entryId, 'signed-pass-u1', first!.entry.passExpiresAtMs))!;
  expect(pass).toBe('signed-pass-u1');
  // another user cannot use it
  expect(await holdWith(eventId, 'u2', ['Q-1'], { entry, pass })).toMatchObject({
    ok: false,
    error: 'ADMISSION_INVALID',
  });
  const held = await holdWith(eventId, 'u1', ['Q-1'], { entry, pass: pass });
  expect(held.ok).toBe(true);

  // the shopper's last hold ends (released): their turn ends in that step, and the next one is admitted
  const released = await store.releaseHold({
    holdId: (held as any).hold.holdId,
    userId: 'u1',
    fencingToken: 2,
  });
  expect(released.ok).toBe(true);
  expect((await queue.entry(first!.entry.entryId, 'u1'))!.entry.state).toBe('DONE');
  // a pass whose turn ended takes no hold
  expect(await holdWith(eventId, 'u1', ['Q-2'], { entry, pass: pass })).toMatchObject({
    ok: false,
    error: 'ADMISSION_INVALID',
  });
  const after = await stepUntil(eventId, (active) => active === 3);
  expect(after.servingNumber).toBe(4);
  // staff and offers go without a pass
  const bypass = await store.createHold({
    eventId,
    holdId: HoldIds.generate(eventId),
    userId: 'agent-made',
    seatIds: ['Q-9'],
    ttlMs: 60_000,
    maxLifetimeMs: 120_000,
    maxSeatsPerUser: 10,
    fencingToken: 1,
    admission: 'bypass',
  });
  expect(bypass.ok).toBe(true);
});

it('ends a turn whose pass runs out unused, and passes over entries not seen for the idle time', async () => {
  const eventId = newEventId();
  await setUp(eventId, {
    admitPerMinute: 60_000,
    maxActiveShoppers: 1,
    passTtlMs: 2500,
    idleEntryTtlMs: 1000,
  });
  await queue.join(eventId, 'quick');
  await queue.join(eventId, 'gone');
  await queue.join(eventId, 'patient');
  await stepUntil(eventId, (active) => active === 1);
  // 'quick' picks up its pass and never holds; 'gone' stops being seen; 'patient' keeps reading its entry
  expect((await queue.entry(queue.entryIdOf(eventId, 'quick'), 'quick'))!.entry.state).toBe('ADMITTED');
  const until = (await redisNowMs(redis)) + 4000;
  while ((await redisNowMs(redis)) < until) {
    await queue.entry(queue.entryIdOf(eventId, 'patient'), 'patient');
    await queue.step(eventId);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await queue.entry(queue.entryIdOf(eventId, 'quick'), 'quick'))!.entry.state).toBe('DONE');
  expect((await queue.entry(queue.entryIdOf(eventId, 'gone'), 'gone'))!.entry.state).toBe('SKIPPED');
  expect((await queue.entry(queue.entryIdOf(eventId, 'patient'), 'patient'))!.entry.state).toBe('ADMITTED');
});

it('ends the turn of an admitted shopper who does not pick up the pass within the idle time', async () => {
  const eventId = newEventId();
  await setUp(eventId, {
    admitPerMinute: 60_000,
    maxActiveShoppers: 2,
    passTtlMs: 60_000,
    idleEntryTtlMs: 1000,
  });
  for (const u of ['reader', 'absent', 'next']) {
    await queue.join(eventId, u);
  }
  await stepUntil(eventId, (active) => active === 2);
  const read = (u: string) => queue.entry(queue.entryIdOf(eventId, u), u);
  // 'absent' was admitted but its client is gone: its place under the cap goes to 'next' an idle time later,
  // not a pass (60 s) later; 'reader' picked up its pass and keeps its turn
  const until = (await redisNowMs(redis)) + 3000;
  while ((await redisNowMs(redis)) < until) {
    await read('reader');
    await read('next');
    await queue.step(eventId);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect((await read('absent'))!.entry.state).toBe('DONE');
  expect((await read('reader'))!.entry.state).toBe('ADMITTED');
  expect((await read('next'))!.entry.state).toBe('ADMITTED');
  expect((await queue.step(eventId))!.figures.activeShoppers).toBe(2);
});

it('shuffles the places given before the start, and gives later ones in arrival order', async () => {
  const eventId = newEventId();
  const s = await setUp(eventId, { order: 'shuffle-then-fifo', startInMs: 1500 });
  const early = Array.from({ length: 200 }, (_, i) => `early-${i}`);
  for (const u of early) {
    await queue.join(eventId, u);
  }
  await untilRedisTimePasses(redis, s.salesStartAtMs);
  const late = ['late-1', 'late-2', 'late-3'];
  for (const u of late) {
    await queue.join(eventId, u);
  }
  const numbers = await Promise.all(
    [...early, ...late].map(async (u) => (await queue.entry(queue.entryIdOf(eventId, u), u))!.entry.number),
  );
  const earlyNumbers = numbers.slice(0, 200);
  expect([...earlyNumbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  // not the join order (the chance of this is 1/200!)
  expect(earlyNumbers).not.toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  expect(numbers.slice(200)).toEqual([201, 202, 203]);
});

it('a hold without an entry is made as before while the event has no queue', async () => {
  const eventId = newEventId();
  await fenced(eventId);
  expect(await createHold(store, eventId, ['N-1'])).toMatchObject({ ok: true });
});
