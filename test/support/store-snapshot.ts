/**
 * What "a refused request changed nothing" means: every Redis key of this test file, dumped byte for
 * byte, and the row counts of the catalogue and bookings. Left aside: lock keys (they come and go by
 * design) and the sweep's wake-up index (hold:wake), a scheduling hint that an earlier change lowers a
 * moment after its own script, so it may land between two snapshots.
 * Compare two snapshots as strings.
 */
import type Redis from 'ioredis';
import type { Db } from './db';

export async function storeSnapshot(redis: Redis, db: Db): Promise<string> {
  const keys = (await redis.keys(`${process.env.REDIS_KEY_PREFIX}*`))
    .filter((k) => !k.includes('lock') && !k.endsWith(':hold:wake'))
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
