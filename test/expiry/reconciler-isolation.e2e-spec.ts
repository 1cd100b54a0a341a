/**
 * One stuck confirm does not stall sweeping: a confirm on event A is stuck behind a PostgreSQL table
 * lock, the reconciler is provably waiting on that lock, and meanwhile holds due on events B..F are
 * freed (seats AVAILABLE, SeatExpired appended to each event's outbox). The proof is causal, not a
 * stopwatch: the frees are observed while the very statement the reconciler was waiting on before the
 * holds were due is still waiting, and the test's lock is still granted.
 */
import Redis from 'ioredis';
import { Client } from 'pg';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { confirmHold, holdSeats } from '@test/support/confirm-agreement';
import { eventually } from '@test/support/eventually';
import { seatStates } from '@test/support/hold-store';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

let api: Api;
let store: HoldStore;
let redis: Redis;
let locker: Client;
let observer: Client;
const bookings = `${process.env.DATABASE_SCHEMA}.bookings`;

beforeAll(async () => {
  api = await startApi({ SWEEPER_ENABLED: 'true', SWEEP_INTERVAL_MS: '200', CONFIRM_TIMEOUT_MS: '1000' });
  store = api.app.get(HoldStore);
  redis = testRedisClient(); // no keyPrefix: ioredis would not prefix XINFO's key
  locker = new Client({ connectionString: process.env.DATABASE_URL });
  observer = new Client({ connectionString: process.env.DATABASE_URL });
  await locker.connect();
  await observer.connect();
});
afterAll(async () => {
  await locker?.end().catch(() => undefined);
  await observer?.end();
  await redis?.quit();
  await api?.close();
});

/** Statements of the app waiting for a lock on this file's bookings table (pid + start identify one). */
async function waitingOnBookings(): Promise<{ pid: number; started: string; query: string }[]> {
  const r = await observer.query(
    `SELECT a.pid, a.query_start::text AS started, a.query
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.relation = $1::regclass AND NOT l.granted AND a.pid <> $2`,
    [bookings, (locker as unknown as { processID: number }).processID],
  );
  return r.rows;
}

async function lockStillGranted(): Promise<boolean> {
  const r = await observer.query(
    `SELECT 1 FROM pg_locks WHERE relation = $1::regclass AND granted AND mode = 'ExclusiveLock' AND pid = $2`,
    [bookings, (locker as unknown as { processID: number }).processID],
  );
  return r.rowCount === 1;
}

/** Holds of the event still in its due index: the sweeper takes a hold out when it expires it. */
const stillDue = (eventId: string) =>
  redis.zcard(`${process.env.REDIS_KEY_PREFIX}${store.layout.eventKeys(eventId).due}`);

it('frees holds due on five other events while the reconciler waits on a PostgreSQL lock for event A', async () => {
  const alice = await api.token('alice');
  const eventA = await createEvent(api, 1, 4);
  const others = [];
  for (let i = 0; i < 5; i++) {
    others.push(await createEvent(api, 1, 4));
  }
  const stuck = await holdSeats(api, alice, eventA, ['S-A-1']);

  await locker.query('BEGIN');
  // EXCLUSIVE: reads still pass, every write waits (the confirm gets as far as writing its booking)
  await locker.query(`LOCK TABLE ${bookings} IN EXCLUSIVE MODE`);
  // the confirm cannot write its booking; whatever it answers, the hold is left for the reconciler
  await confirmHold(api, stuck, 'o-stuck');
  let waiter: { pid: number; started: string } | undefined;
  await eventually(
    async () => {
      const w = await waitingOnBookings();
      waiter = w[0];
      return w.length > 0;
    },
    30_000,
    'the reconciler waiting on the bookings lock',
  );

  // now holds on B..F fall due (created as if a moment ago, with a ttl that is already over)
  const due = await Promise.all(
    others.map(async (eventId) => {
      const holdId = HoldIds.generate(eventId);
      const r = await store.createHold({
        eventId,
        holdId,
        userId: 'bob',
        seatIds: ['S-A-1', 'S-A-2'],
        ttlMs: 1,
        maxLifetimeMs: 60_000,
        maxSeatsPerUser: 10,
        fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
      });
      expect(r.ok).toBe(true);
      return { eventId, holdId };
    }),
  );
  // freed by the sweeper, not merely read as over: seats AVAILABLE and out of the due index (expired, with
  // its SeatExpired records, in the same script)
  await eventually(
    async () => {
      for (const { eventId } of due) {
        if ((await stillDue(eventId)) !== 0 || (await seatStates(store, eventId)).size > 0) {
          return false;
        }
      }
      return true;
    },
    15_000,
    'holds on B..F freed by the sweeper',
  );
  // ... while the reconciler is still held up by our lock: a statement of it waits on the bookings table
  // (each attempt has a client-side deadline, after which it gives up that connection and tries again, so
  // the waiting statement may be a later one than the first seen)
  const stillWaiting = await waitingOnBookings();
  expect(waiter).toBeDefined();
  expect(stillWaiting.length).toBeGreaterThan(0);
  expect(await lockStillGranted()).toBe(true);
  for (const { holdId } of due) {
    expect((await store.getHold(holdId))?.status).toBe('EXPIRED');
  }
  expect((await store.getHold(stuck.holdId))?.status).toBe('CONFIRMING');

  // and once PostgreSQL answers again, the reconciler decides the stuck confirm
  await locker.query('ROLLBACK');
  await eventually(
    async () => (await store.getHold(stuck.holdId))?.status === 'ACTIVE',
    15_000,
    'stuck confirm decided after the lock',
  );
});
