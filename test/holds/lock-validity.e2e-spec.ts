/**
 * The seat lock's validity is checked right before each store write (HeldLock.assertValid): a change
 * whose lease ran out while it waited (here: deciding a stuck confirm behind a PostgreSQL lock) writes
 * nothing and answers 503 BUSY with Retry-After, like contention, so the client simply retries.
 */
import Redis from 'ioredis';
import { Client } from 'pg';
import { beginConfirmThenStop, holdSeats } from '@test/support/confirm-agreement';
import { eventually } from '@test/support/eventually';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { testRedisClient } from '@test/support/test-redis';

let api: Api;
let redis: Redis;
let eventId: string;
let alice: string;

beforeAll(async () => {
  api = await startApi({ SEAT_LOCK_LEASE_MS: '300', SEAT_LOCK_WAIT_MS: '2000' });
  redis = testRedisClient({ keyPrefix: process.env.REDIS_KEY_PREFIX });
  eventId = await createEvent(api, 1, 4);
  alice = await api.token('alice');
});
afterAll(async () => {
  await redis?.quit();
  await api?.close();
});

it('extend whose seat lock ran out before its write: 503 BUSY with Retry-After, nothing written', async () => {
  const h = await holdSeats(api, alice, eventId, ['S-A-1']);
  const before = (await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice })).body;
  // a confirm that died: the next extend must first decide it from PostgreSQL, under the seat lock
  await beginConfirmThenStop(api, h, 'alice', 'o-died', 60_000);
  const locker = new Client({ connectionString: process.env.DATABASE_URL });
  await locker.connect();
  try {
    await locker.query('BEGIN');
    // EXCLUSIVE: reads still pass, every write waits (the extend's marker insert waits here)
    await locker.query(`LOCK TABLE ${process.env.DATABASE_SCHEMA}.bookings IN EXCLUSIVE MODE`);
    const extend = api.call('POST', `/v1/holds/${h.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 60 },
    });
    // the extend holds the seat lock and waits on our table lock ...
    await eventually(
      async () =>
        (
          await locker.query(`SELECT 1 FROM pg_locks WHERE relation = $1::regclass AND NOT granted`, [
            `${process.env.DATABASE_SCHEMA}.bookings`,
          ])
        ).rowCount! > 0,
      5_000,
      'the extend waiting on PostgreSQL',
    );
    // ... until its lease has provably run out: Redis dropped the lock key
    const lockKey = `lock:${api.app.get(HoldStore).layout.seatLockKeys(eventId, ['S-A-1'])[0]}`;
    await eventually(async () => (await redis.exists(lockKey)) === 0, 5_000, 'seat lock lease over');
    await locker.query('ROLLBACK'); // the marker goes in, the attempt is given up; then the write is checked
    const r = await extend;
    expect([r.status, r.body.code]).toEqual([503, 'BUSY']);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  } finally {
    await locker.end();
  }
  // nothing extended: same expiry, no extension used; the stuck confirm was decided (ACTIVE again)
  const after = (await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice })).body;
  expect(after).toMatchObject({ status: 'ACTIVE', expiresAt: before.expiresAt, extensionsUsed: 0 });
  // and the retry goes through
  const retry = await api.call('POST', `/v1/holds/${h.holdId}/extend`, {
    token: alice,
    body: { ttlSeconds: 60 },
  });
  expect([retry.status, retry.body.extensionsUsed]).toEqual([200, 1]);
});
