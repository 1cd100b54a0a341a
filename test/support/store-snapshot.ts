/**
 * What "a refused request changed nothing" means: every Redis key of this test file (lock keys aside:
 * they come and go by design), dumped byte for byte, and the row counts of the catalogue and bookings.
 * Compare two snapshots as strings.
 */
import type Redis from 'ioredis';
import type { Db } from './db';

export async function storeSnapshot(redis: Redis, db: Db): Promise<string> {
  const keys = (await redis.keys(`${process.env.REDIS_KEY_PREFIX}*`))
    .filter((k) => !k.includes('lock'))
    .sort();
  const values = await Promise.all(
    keys.map(async (k) => [k, (await redis.dumpBuffer(k))?.toString('base64')]),
  );
  const counts: number[] = [];
  for (const table of ['events', 'seats', 'bookings', 'booking_seats']) {
    counts.push(await db.count(table)); // one client: one query at a time
  }
  return JSON.stringify({ values, counts });
}
