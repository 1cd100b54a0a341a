/**
 * Test helpers for the hold store (apps/seat-api/src/hold-store), shared by its specs, the e2e tests and
 * the benches: the specs' store and event ids, a hold created with test defaults, the full-scan seat
 * states oracle, and Redis's clock.
 */
import Redis from 'ioredis';
import { AppConfig, loadConfig } from '@app/config';
import { RedisClient } from '@app/redis';
import { DistributedLockService } from '@app/distributed-lock';
import {
  CreateHoldResult,
  HoldIds,
  HoldRecord,
  HoldStore,
  SeatState,
} from '../../apps/seat-api/src/hold-store';
import { HoldLayout } from '../../apps/seat-api/src/hold-store/hold-keys';
import { holdDefinitions } from '../../apps/seat-api/src/hold-store/lua/hold-script';
import { eventScriptSpec } from '../../apps/seat-api/src/hold-store/lua/manifest';
import { luaReader, readLua } from '@app/redis';
import { TEST_HOLD_SCRIPTS, TEST_LUA_DIR } from './lua/manifest';
import { eventually } from './eventually';
import { eventIdsInDistinctShards } from './shard-events';

export interface OpenHoldStore {
  redis: Redis;
  locks: DistributedLockService;
  store: HoldStore;
}

/**
 * The store specs' setup: a HoldStore on the test Redis (REDIS_URL, under the file's own REDIS_KEY_PREFIX)
 * with the lock service that issues its fencing tokens. The caller quits `redis` when done.
 */
export function openHoldStore(config: AppConfig = loadConfig()): OpenHoldStore {
  const redis = new Redis(process.env.REDIS_URL!, { keyPrefix: process.env.REDIS_KEY_PREFIX });
  const locks = new DistributedLockService({ redis, keyPrefix: 'lock:' });
  return { redis, locks, store: new HoldStore(redis, config, locks) };
}

/** New event ids for one spec file, each in a shard of its own under the configured shard count. */
export const newHoldEventIds = (): (() => string) =>
  eventIdsInDistinctShards(new HoldLayout(loadConfig().holds.shards));

export interface TestHold {
  user?: string;
  ttlMs?: number;
  /** The fencing token the write presents (default 1: specs set the counter past it, or use 0). */
  fence?: number;
  /** maxSeatsPerUser */
  limit?: number;
  maxLifetimeMs?: number;
  /** What the hold is priced by (HoldRecord.pricing); default: not priced. */
  pricing?: string;
}

/** store.createHold with a fresh hold id and the defaults specs use: alice, 60 s, 10 seats per user. */
export function createHold(
  store: HoldStore,
  eventId: string,
  seatIds: string[],
  o: TestHold = {},
): Promise<CreateHoldResult> {
  return store.createHold({
    eventId,
    holdId: HoldIds.generate(eventId),
    userId: o.user ?? 'alice',
    seatIds,
    ttlMs: o.ttlMs ?? 60_000,
    maxLifetimeMs: o.maxLifetimeMs ?? 120_000,
    maxSeatsPerUser: o.limit ?? 10,
    fencingToken: o.fence ?? 1,
    pricing: o.pricing,
  });
}

/** createHold that must succeed: the hold, or a failure naming the refusal. */
export async function createdHold(
  store: HoldStore,
  eventId: string,
  seatIds: string[],
  o: TestHold = {},
): Promise<HoldRecord> {
  const r = await createHold(store, eventId, seatIds, o);
  if (!r.ok) {
    throw new Error(`hold refused: ${r.error}`);
  }
  return r.hold;
}

/**
 * Seat map of one event by a full scan of its seats hash: {seatId, 'HELD'|'BOOKED', ...} for the seats
 * that are not available. HELD only while expireAt is in the future (or while a confirm is in flight),
 * without waiting for the sweeper. The service reads the seat map from the change log (seat-change-log.ts);
 * this scan is the oracle tests compare it with.
 */
/**
 * Runs a test's own script (test/support/lua, TEST_HOLD_SCRIPTS) on one event as one EVAL, with the hold
 * library's helpers and the event's keys and arguments, as the store's own scripts run: begin() first, the
 * change log written after.
 */
export function evalOnEvent(
  store: HoldStore,
  name: keyof typeof TEST_HOLD_SCRIPTS,
  eventId: string,
  args: Record<string, string | number> = {},
): Promise<unknown> {
  const own = TEST_HOLD_SCRIPTS[name];
  const text = [
    holdDefinitions(),
    luaReader(eventScriptSpec(own)),
    'begin()',
    'local function script_body()',
    readLua(TEST_LUA_DIR, own.file),
    'end',
    'local reply = script_body()',
    'log_changes()',
    'return reply',
  ].join('\n');
  const call = store.scripts.eventCall(own, eventId, args);
  return store.scripts.redis.eval(text, call.keys.length, ...call.keys, ...call.args);
}

/** Seats that are HELD or BOOKED right now (SEAT_STATES); every other seat of the event is AVAILABLE. */
export async function seatStates(store: HoldStore, eventId: string): Promise<Map<string, SeatState>> {
  const flat = (await evalOnEvent(store, 'seatStates', eventId)) as string[];
  const states = new Map<string, SeatState>();
  for (let i = 0; i < flat.length; i += 2) {
    states.set(flat[i], flat[i + 1] as SeatState);
  }
  return states;
}

/**
 * The keys of an event's hold records, every bucket (`holds:<b>`, hold-keys.ts), as named on `redis`
 * (give `prefix` when the client adds no key prefix itself): the bucket count is read from its meta.
 */
export async function holdRecordKeys(
  redis: Redis,
  store: HoldStore,
  eventId: string,
  prefix = '',
): Promise<string[]> {
  const [level, split] = await redis.hmget(`${prefix}${store.layout.eventKeys(eventId).meta}`, 'hl', 'hp');
  const count = 2 ** Number(level ?? 0) + Number(split ?? 0);
  return store.layout
    .holdBucketKeys(eventId, count)
    .filter((k) => !k.includes(':due:'))
    .map((k) => `${prefix}${k}`);
}

/** Redis's clock (the store's only clock), in ms. */
export async function redisNowMs(redis: Redis): Promise<number> {
  const [s, us] = await redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** Waits on Redis's clock until `atMs` has passed: what a hold's expiry is decided by. */
export async function untilRedisTimePasses(redis: Redis, atMs: number): Promise<void> {
  await eventually(async () => (await redisNowMs(redis)) > atMs, 10_000, `Redis time past ${atMs}`);
}

/**
 * The event's retain-until (ms) in its shard's events index (HoldStore.registerEvent), or null when it is
 * not registered. `redis` is the store's own client (its keyPrefix applies).
 */
export async function retainUntil(
  redis: RedisClient,
  store: HoldStore,
  eventId: string,
): Promise<number | null> {
  const events = store.layout.shardKeys(store.layout.shardOf(eventId)).events;
  const score = await redis.zscore(events, eventId);
  return score === null ? null : Number(score);
}
