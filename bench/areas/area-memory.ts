/**
 * Redis memory of general-admission areas (hold store only, a private redis-server so INFO memory sees
 * nothing else): the area's key (MEMORY USAGE) and the used_memory added by setting it up, for an area of
 * 100 places and one of 100,000; then the bytes a hold adds (used_memory delta over many holds), holds of
 * places against holds of as many named seats, and the area's key again once those holds are in.
 */
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { table } from '../support/report';

export const MEMORY_REDIS_PORT = Number(process.env.BENCH_MEMORY_REDIS_PORT ?? 7901);
const HOLDS = Number(process.env.BENCH_MEMORY_HOLDS ?? 10_000);
const SMALL = 100;
const LARGE = 100_000;

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
}

const memoryUsage = async (redis: Redis, key: string) =>
  Number((await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);

/** An event registered with one area FLOOR of `capacity` places, as the catalogue's first load leaves it. */
async function eventWithArea(store: HoldStore, capacity: number): Promise<string> {
  const eventId = randomUUID();
  await store.registerEvent(eventId, new Date('2030-01-01T20:00:00Z'));
  await store.repairAreas(eventId, [{ name: 'FLOOR', capacity, booked: 0, blocked: 0 }]);
  return eventId;
}

/** `holds` holds of `size` places of FLOOR, or of `size` distinct named seats, each by its own user. */
async function fill(store: HoldStore, eventId: string, holds: number, size: number, places: boolean) {
  for (let start = 0; start < holds; start += 1000) {
    const calls: Promise<void>[] = [];
    for (let i = start; i < Math.min(holds, start + 1000); i++) {
      calls.push(
        store
          .createHold({
            eventId,
            holdId: HoldIds.generate(eventId),
            userId: `user-${i}`,
            seatIds: places ? [] : Array.from({ length: size }, (_, k) => `S-R${i}-${k + 1}`),
            places: places ? [{ area: 'FLOOR', quantity: size }] : undefined,
            ttlMs: 3_600_000,
            maxLifetimeMs: 7_200_000,
            maxSeatsPerUser: 100,
            fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
          })
          .then((r) => {
            if (!r.ok) {
              throw new Error(`fill failed: ${r.error}`);
            }
          }),
      );
    }
    await Promise.all(calls);
  }
}

export interface MemoryFigures {
  section: string;
  /** the area's key, 100,000 places / 100 places, empty */
  keyRatio: number;
  /** used_memory added per hold, places / named seats (same count) */
  perHoldRatio: number;
}

export async function areaMemory(config: AppConfig): Promise<MemoryFigures> {
  const redis = await startPrivateRedis([], MEMORY_REDIS_PORT);
  const client = redis.client;
  const store = new HoldStore(client, config, new DistributedLockService({ redis: client }));
  try {
    // 1. the area itself: its key and what setting it up adds, small vs large
    const areaRows: (string | number)[][] = [];
    const keyBytes: Record<number, number> = {};
    // not measured: the first call loads the hold functions (their memory is not the area's)
    await eventWithArea(store, SMALL);
    for (const capacity of [SMALL, LARGE, SMALL, LARGE]) {
      await client.flushall();
      const eventId = randomUUID();
      await store.registerEvent(eventId, new Date('2030-01-01T20:00:00Z'));
      const before = await usedMemory(client);
      await store.repairAreas(eventId, [{ name: 'FLOOR', capacity, booked: 0, blocked: 0 }]);
      const added = (await usedMemory(client)) - before;
      keyBytes[capacity] = await memoryUsage(client, store.layout.areasKey(eventId));
      areaRows.push([capacity.toLocaleString('en'), keyBytes[capacity], added]);
    }
    // 2. bytes per hold: places vs as many named seats, on an event with an area of 100,000 places
    const holdRows: (string | number)[][] = [];
    const perHold: Record<string, number> = {};
    let keyWithHolds = 0;
    for (const size of [2, 4]) {
      for (const places of [true, false]) {
        await client.flushall();
        const eventId = await eventWithArea(store, LARGE);
        const before = await usedMemory(client);
        await fill(store, eventId, HOLDS, size, places);
        const bytes = ((await usedMemory(client)) - before) / HOLDS;
        perHold[`${places ? 'places' : 'seats'}${size}`] = bytes;
        const key = await memoryUsage(client, store.layout.areasKey(eventId));
        if (places && size === 2) {
          keyWithHolds = key;
        }
        const counts = (await store.areaCounts(eventId)).get('FLOOR')!;
        holdRows.push([
          places ? `${size} places of FLOOR` : `${size} named seats`,
          HOLDS.toLocaleString('en'),
          Math.round(bytes),
          (bytes / size).toFixed(1),
          key,
          `${counts.held.toLocaleString('en')} held`,
        ]);
      }
    }
    await client.flushall();
    const keyRatio = keyBytes[LARGE] / keyBytes[SMALL];
    const perHoldRatio = perHold.places2 / perHold.seats2;
    const section = [
      '## Redis memory (hold store only, a private redis-server)',
      '',
      table(
        [
          'area capacity (empty)',
          'its key, MEMORY USAGE (B)',
          'used_memory added by setting the area up (B)',
        ],
        areaRows,
      ),
      '',
      table(
        [
          'each hold (one user each)',
          'holds',
          'bytes per hold (used_memory delta)',
          'bytes per place or seat',
          'the areas key after (B)',
          'FLOOR (capacity 100,000)',
        ],
        holdRows,
      ),
      '',
      `The area's key, 100,000 places / 100 places: ${keyBytes[LARGE]} / ${keyBytes[SMALL]} B = ` +
        `${keyRatio.toFixed(2)} (target: does not grow with capacity: ${keyRatio <= 1.05 ? 'met' : 'not met'}); ` +
        `with ${HOLDS.toLocaleString('en')} holds of 2 places in it: ${keyWithHolds} B (the holds' cost is in their records). ` +
        `Bytes per hold, 2 places / 2 named seats: ${Math.round(perHold.places2)} / ${Math.round(perHold.seats2)} = ` +
        `${perHoldRatio.toFixed(2)}; 4 places / 4 named seats: ${Math.round(perHold.places4)} / ` +
        `${Math.round(perHold.seats4)} = ${(perHold.places4 / perHold.seats4).toFixed(2)}.`,
    ].join('\n');
    console.log(section);
    return { section, keyRatio, perHoldRatio };
  } finally {
    await redis.stop();
  }
}
