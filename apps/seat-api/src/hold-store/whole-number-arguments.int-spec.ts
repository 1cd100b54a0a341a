/**
 * The hold store's numeric arguments are whole milliseconds and counts. The scripts compare expiry
 * times as they were written (the hold record's expireAt against its due-index score), so a fractional
 * ttl, once accepted, would be half-swept: the hold reads EXPIRED while its seats stay HELD and no
 * SeatExpired goes out. The API never sends one; the store refuses it before writing anything.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { createHold, seatStates } from '@test/support/hold-store';
import { eventIdsInDistinctShards } from '@test/support/shard-events';
import { HoldLayout } from './hold-keys';
import { HoldStore } from './hold.store';

const newEventId = eventIdsInDistinctShards(new HoldLayout(loadConfig().holds.shards));

let redis: Redis;
let store: HoldStore;

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  const locks = new DistributedLockService({ redis, keyPrefix: 'lock:' });
  store = new HoldStore(redis, loadConfig(), locks);
});
afterAll(() => redis.quit());

it.each([
  ['ttlMs', { ttlMs: 1_500.5 }],
  ['ttlMs', { ttlMs: 0 }],
  ['ttlMs', { ttlMs: Number.NaN }],
  ['maxLifetimeMs', { maxLifetimeMs: 2.5e3 + 0.25 }],
  ['maxSeatsPerUser', { limit: 1.5 }],
  ['fencingToken', { fence: -1 }],
])('refuses a hold whose %s is not a whole positive number, writing nothing', async (name, o) => {
  const eventId = newEventId();
  await expect(createHold(store, eventId, ['A-1'], o)).rejects.toThrow(name);
  expect(Object.fromEntries(await seatStates(store, eventId))).toEqual({});
});

it.each(['a=b', 'a\nb'])(
  'refuses a hold for the user id %j (the users index delimits ids with them)',
  async (user) => {
    const eventId = newEventId();
    await expect(createHold(store, eventId, ['A-1'], { user })).rejects.toThrow('user id');
    expect(Object.fromEntries(await seatStates(store, eventId))).toEqual({});
  },
);

it('refuses an extension by a fractional ttl, leaving the hold as it was', async () => {
  const eventId = newEventId();
  const created = await createHold(store, eventId, ['A-1'], { fence: 0 });
  if (!created.ok) {
    throw new Error(created.error);
  }
  const { holdId, expireAtMs } = created.hold;
  await expect(
    store.extendHold({ holdId, userId: 'alice', ttlMs: 30_000.5, maxExtensions: 5, fencingToken: 0 }),
  ).rejects.toThrow('ttlMs');
  expect((await store.getHold(holdId))?.expireAtMs).toEqual(expireAtMs);
});

it('takes maxExtensions 0 (HOLD_MAX_EXTENSIONS=0: extensions off) as a refusal, not an error', async () => {
  const created = await createHold(store, newEventId(), ['A-1'], { fence: 0 });
  if (!created.ok) {
    throw new Error(created.error);
  }
  const extended = await store.extendHold({
    holdId: created.hold.holdId,
    userId: 'alice',
    ttlMs: 30_000,
    maxExtensions: 0,
    fencingToken: 0,
  });
  expect(extended).toMatchObject({ ok: false, error: 'EXTENSION_LIMIT_REACHED' });
});
