/**
 * The hold scripts run as functions of one Redis library (lua/hold-script.ts, hold-scripts.ts). Against the
 * test Redis: the store loads the library when started, and a Redis that lost it (FUNCTION FLUSH, as after a
 * restart without persistence) answers the next call once the store has loaded it again, with no error.
 */
import Redis from 'ioredis';
import { createHold, newHoldEventIds, openHoldStore } from '@test/support/hold-store';
import { HoldStore } from './hold.store';

const newEventId = newHoldEventIds();
let redis: Redis;
let store: HoldStore;

beforeAll(() => ({ redis, store } = openHoldStore()));
afterAll(() => redis.quit());

/** Names of the libraries Redis holds. */
async function libraries(): Promise<string[]> {
  const list = (await redis.call('FUNCTION', 'LIST')) as unknown[][];
  return list.map((lib) => String(lib[lib.indexOf('library_name') + 1]));
}

it('loads its library when started, and again when Redis lost it, without failing a call', async () => {
  await store.onModuleInit();
  expect((await libraries()).some((name) => name.startsWith('seathold_'))).toBe(true);

  await redis.call('FUNCTION', 'FLUSH');
  expect(await libraries()).toEqual([]);
  const eventId = newEventId();
  const results = await Promise.all(
    ['L-1', 'L-2', 'L-3'].map((seat, i) => createHold(store, eventId, [seat], { user: `l${i}`, fence: 0 })),
  );
  expect(results.map((r) => r.ok)).toEqual([true, true, true]);
  expect((await libraries()).filter((name) => name.startsWith('seathold_'))).toHaveLength(1);
});
