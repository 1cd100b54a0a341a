/**
 * The packed Redis entries of the hold store (hold-keys.ts, lua/prelude.lua.ts): a hold record keeps every
 * field through save and load whatever its status. Keys live under this file's own REDIS_KEY_PREFIX.
 */
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldStore } from './hold.store';
import { HoldIds } from './hold-ids';
import { PRELUDE } from './lua/prelude.lua';
import { createdHold, newHoldEventIds, openHoldStore } from '../../../../test/support/hold-store';

const newEventId = newHoldEventIds();

const config = loadConfig();
let redis: Redis;
let locks: DistributedLockService;
let store: HoldStore;

beforeAll(() => ({ redis, locks, store } = openHoldStore(config)));
afterAll(() => redis.quit());

/** Saves `fields` over the hold `hid` with prelude save(), then answers what load() reads back. */
const ROUND_TRIP = `${PRELUDE}
local h = load(ARGV[4])
local f = cjson.decode(ARGV[5])
for k, v in pairs(f) do h[k] = v end
save(h)
local r = load(ARGV[4])
return cjson.encode({ r.user, r.status, r.seats, r.created, r.expire, r.max, r.ext, r.fence, r.order,
  r.ended, r.deadline, #cmsgpack.unpack(redis.call('HGET', K_HOLDS, ARGV[4])) })
`;

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
        (await store.scripts.evalOnEvent(ROUND_TRIP, eventId, [hid, JSON.stringify(fields)])) as string,
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
});
