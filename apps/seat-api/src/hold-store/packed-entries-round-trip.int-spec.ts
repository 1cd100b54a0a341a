/**
 * The packed Redis entries of the hold store (hold-keys.ts, lua/hold-records.lua): a hold record keeps every
 * field through save and load whatever its status, and users whose digests share a users-hash bucket keep
 * apart (each one's seat cap counts only its own holds), even when one id starts with the other. Keys live
 * under this file's own REDIS_KEY_PREFIX.
 */
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldStore } from './hold.store';
import { HoldIds } from './hold-ids';
import { USER_BUCKET_HEX_DIGITS } from './lua/manifest';
import {
  createHold,
  createdHold,
  evalOnEvent,
  newHoldEventIds,
  openHoldStore,
  TestHold,
} from '@test/support/hold-store';

const newEventId = newHoldEventIds();

const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;

beforeAll(() => ({ redis, locks, store } = openHoldStore(config)));
afterAll(() => redis.quit());

const hold = (eventId: string, seatIds: string[], o: TestHold = {}) => createHold(store, eventId, seatIds, o);
const bucketOf = (user: string) =>
  createHash('sha1').update(user).digest('hex').slice(0, USER_BUCKET_HEX_DIGITS);

/** A user id that starts with `user` and lands in `user`'s users-hash bucket (the harder case for a search). */
function sameBucketAs(user: string): string {
  for (let i = 0; ; i++) {
    if (bucketOf(`${user}${i}`) === bucketOf(user)) {
      return `${user}${i}`;
    }
  }
}

describe('HoldStore packed entries', () => {
  let eventId: string;
  beforeEach(async () => {
    eventId = newEventId();
    await redis.set(locks.fenceKey(store.layout.tagOf(store.layout.shardOf(eventId))), 100);
  });

  it('a hold record keeps every field through save and load, and an ACTIVE one stores 8 fields', async () => {
    const h = await createdHold(store, eventId, ['P-1', 'P-2']);
    const hid = HoldIds.parse(h.holdId)!.hid;
    const roundTrip = async (fields: object) =>
      JSON.parse(
        (await evalOnEvent(store, 'holdRecordRoundTrip', eventId, {
          hid,
          fieldsJson: JSON.stringify(fields),
        })) as string,
      ) as unknown[];
    const c = h.createdAtMs;
    const base = ['alice', 'ACTIVE', ['P-1', 'P-2'], c, h.expireAtMs, h.maxExpireAtMs, 0, 1, '', 0, 0];

    expect(await roundTrip({})).toEqual([...base, 8]);
    // a confirm in flight: order and deadline; ended stays 0 in between
    expect(await roundTrip({ status: 'CONFIRMING', order: 'o-1', deadline: c + 5000, fence: 7 })).toEqual([
      'alice',
      'CONFIRMING',
      ...base.slice(2, 7),
      7,
      'o-1',
      0,
      c + 5000,
      11,
    ]);
    // ended in the very ms it was made (not "never"), with a large fence and extensions
    expect(
      await roundTrip({ status: 'RELEASED', order: '', deadline: 0, ended: c, fence: 2 ** 40, ext: 3 }),
    ).toEqual(['alice', 'RELEASED', ...base.slice(2, 6), 3, 2 ** 40, '', c, 0, 10]);
    for (const status of ['CONFIRMED', 'EXPIRED']) {
      expect((await roundTrip({ status }))[1]).toBe(status);
    }
  });

  it('users sharing a users-hash bucket each keep their own holds and seat cap', async () => {
    const bob = sameBucketAs('alice');
    const a = await createdHold(store, eventId, ['Q-1', 'Q-2'], { limit: 3 });
    const b = await createdHold(store, eventId, ['Q-3', 'Q-4', 'Q-5'], { user: bob, limit: 3 });
    expect(await redis.hlen(store.layout.eventKeys(eventId).users)).toBe(1);

    // each cap counts only its own user's seats
    expect(await hold(eventId, ['Q-6'], { limit: 3 })).toMatchObject({ ok: true });
    expect(await hold(eventId, ['Q-7'], { user: bob, limit: 3 })).toMatchObject({
      ok: false,
      error: 'HOLD_LIMIT_EXCEEDED',
      heldSeats: 3,
    });

    // bob's release leaves alice's holds counted, and frees only bob's room
    expect((await store.releaseHold({ holdId: b.holdId, userId: bob, fencingToken: 1 })).ok).toBe(true);
    expect(await hold(eventId, ['Q-8'], { limit: 3 })).toMatchObject({
      ok: false,
      error: 'HOLD_LIMIT_EXCEEDED',
      heldSeats: 3,
    });
    expect(await hold(eventId, ['Q-9', 'Q-10', 'Q-11'], { user: bob, limit: 3 })).toMatchObject({ ok: true });

    // alice's release too: her entry goes, bob's stays in the shared field
    expect((await store.releaseHold({ holdId: a.holdId, userId: 'alice', fencingToken: 1 })).ok).toBe(true);
    expect(await hold(eventId, ['Q-12', 'Q-13'], { limit: 3 })).toMatchObject({ ok: true });
    expect(await hold(eventId, ['Q-14'], { user: bob, limit: 3 })).toMatchObject({
      ok: false,
      error: 'HOLD_LIMIT_EXCEEDED',
      heldSeats: 3,
    });
  });

  it('a user whose holds all ended leaves no users-hash entry behind', async () => {
    const h = await createdHold(store, eventId, ['R-1']);
    expect(await redis.hlen(store.layout.eventKeys(eventId).users)).toBe(1);
    expect((await store.releaseHold({ holdId: h.holdId, userId: 'alice', fencingToken: 1 })).ok).toBe(true);
    expect(await redis.exists(store.layout.eventKeys(eventId).users)).toBe(0);
  });
});
