/**
 * Idempotency-Key on hold, extend and confirm (IdempotentRequests.run, called by each handler), and the 503 BUSY answer when a seat lock cannot
 * be had: same key + same body replays the first answer (refusals included), another body is 422,
 * a duplicate in flight is 409, and answers that say nothing about the request (503) are not kept.
 */
import { DistributedLockService } from '@app/distributed-lock';
import { REDIS_CLIENT } from '@app/redis';
import { seatLockKeys } from '../../apps/seat-api/src/holds/holds.service';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let eventId: string;
let alice: string;
let n = 0;

beforeAll(async () => {
  api = await startApi({ SEAT_LOCK_WAIT_MS: '200', HOLD_MAX_SEATS_PER_USER: '100' });
  eventId = await createEvent(api, 2, 20);
  alice = await api.token('alice');
});
afterAll(() => api?.close());

const key = () => ({ 'idempotency-key': `key-${Date.now()}-${++n}` });
const hold = (token: string, seatIds: string[], headers: Record<string, string> = {}) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds }, headers });
const holdsOf = async (seat: string) =>
  (await api.call('GET', `/v1/events/${eventId}/seats`, { token: alice })).body.seats.find(
    (s: { seatId: string }) => s.seatId === seat,
  ).status as string;

it('a burst of the same request with one key makes one hold; the others replay it or are told it is in flight', async () => {
  const k = key();
  const results = await Promise.all(Array.from({ length: 20 }, () => hold(alice, ['S-A-1'], k)));
  const created = results.filter((r) => r.status === 201);
  const inFlight = results.filter((r) => r.status === 409);
  expect(created.length + inFlight.length).toBe(20);
  expect(created.length).toBeGreaterThanOrEqual(1);
  expect(new Set(created.map((r) => r.body.holdId)).size).toBe(1);
  for (const r of inFlight) {
    expect(r.body).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  // afterwards the key only replays
  const later = await hold(alice, ['S-A-1'], k);
  expect(later.status).toBe(201);
  expect(later.body.holdId).toBe(created[0].body.holdId);
  expect(later.headers.get('idempotent-replayed')).toBe('true');
});

it('replays a refusal (409 SEATS_UNAVAILABLE) for the same key even after the seat became free', async () => {
  const bob = await api.token('bob');
  const taken = await hold(bob, ['S-A-2']);
  const k = key();
  const first = await hold(alice, ['S-A-2'], k);
  expect(first.status).toBe(409);
  expect(first.body.code).toBe('SEATS_UNAVAILABLE');
  expect((await api.call('DELETE', `/v1/holds/${taken.body.holdId}`, { token: bob })).status).toBe(204);
  const replay = await hold(alice, ['S-A-2'], k);
  expect(replay.status).toBe(409);
  expect(replay.body).toMatchObject({
    code: 'SEATS_UNAVAILABLE',
    errors: [{ seatId: 'S-A-2', reason: 'HELD' }],
  });
  // the replayed envelope names this request, not the first one
  expect(replay.body.requestId).toBe(replay.headers.get('x-request-id'));
  expect(replay.body.requestId).not.toBe(first.body.requestId);
  expect(await holdsOf('S-A-2')).toBe('AVAILABLE'); // the replay changed nothing
  // a new key is a new attempt
  expect((await hold(alice, ['S-A-2'], key())).status).toBe(201);
});

it('refuses a key reused for another body (422) and a malformed key (400), changing nothing', async () => {
  const k = key();
  expect((await hold(alice, ['S-A-3'], k)).status).toBe(201);
  const other = await hold(alice, ['S-A-4'], k);
  expect(other.status).toBe(422);
  expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
  const bad = await hold(alice, ['S-A-4'], { 'idempotency-key': 'has spaces and ; semicolons' });
  expect(bad.status).toBe(400);
  expect(bad.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.any(String) }]);
  expect(await holdsOf('S-A-4')).toBe('AVAILABLE');
});

it('keeps nothing under a key whose request was malformed (400): the key then carries the corrected request', async () => {
  const k = key();
  // refused by validation before the handler, and by the service (ttl out of range) inside it
  const badBody = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: 'S-A-5' },
    headers: k,
  });
  expect(badBody.status).toBe(400);
  const badTtl = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: alice,
    body: { seatIds: ['S-A-5'], ttlSeconds: 1_000_000 },
    headers: k,
  });
  expect(badTtl.status).toBe(400);
  expect(badTtl.headers.get('idempotent-replayed')).toBeNull();
  const fixed = await hold(alice, ['S-A-5'], k);
  expect(fixed.status).toBe(201);
  expect(fixed.headers.get('idempotent-replayed')).toBeNull();
  expect((await hold(alice, ['S-A-5'], k)).body.holdId).toBe(fixed.body.holdId); // now it replays
});

describe('a seat whose lock is taken', () => {
  // held by another instance: a holder in the service's own process is waited for (up to one lease)
  const anotherInstance = () =>
    new DistributedLockService({ redis: api.app.get(REDIS_CLIENT), keyPrefix: 'lock:' });

  it('answers 503 BUSY with Retry-After, keeps nothing under the key, and succeeds once the lock is free', async () => {
    const locks = anotherInstance();
    const lock = await locks.acquire(seatLockKeys(api.app.get(HoldStore).layout, eventId, ['S-B-1']), {
      leaseMs: 10_000,
    });
    const k = key();
    try {
      const busy = await hold(alice, ['S-B-1', 'S-B-2'], k);
      expect(busy.status).toBe(503);
      expect(busy.body).toMatchObject({ statusCode: 503, code: 'BUSY', requestId: expect.any(String) });
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await holdsOf('S-B-2')).toBe('AVAILABLE'); // all or none
    } finally {
      await lock.release();
    }
    const retry = await hold(alice, ['S-B-1', 'S-B-2'], k);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('also answers BUSY for extend, release and confirm of a hold on that seat', async () => {
    const h = (await hold(alice, ['S-B-3'])).body;
    const locks = anotherInstance();
    const lock = await locks.acquire(seatLockKeys(api.app.get(HoldStore).layout, eventId, ['S-B-3']), {
      leaseMs: 10_000,
    });
    try {
      for (const [method, path, body] of [
        ['POST', `/v1/holds/${h.holdId}/extend`, { ttlSeconds: 60 }],
        ['DELETE', `/v1/holds/${h.holdId}`, undefined],
        ['POST', `/v1/holds/${h.holdId}/confirm`, { orderId: 'busy-1' }],
      ] as const) {
        const r = await api.call(method, path, { token: alice, body });
        expect([r.status, r.body.code]).toEqual([503, 'BUSY']);
      }
    } finally {
      await lock.release();
    }
    const after = await api.call('GET', `/v1/holds/${h.holdId}`, { token: alice });
    expect(after.body).toMatchObject({ status: 'ACTIVE', extensionsUsed: 0 });
  });
});

describe('Idempotency-Key on extend and confirm', () => {
  it('a retried extend replays the first answer instead of using another extension', async () => {
    const h = await hold(alice, ['S-B-10']);
    expect(h.status).toBe(201);
    const k = key();
    const extend = () =>
      api.call('POST', `/v1/holds/${h.body.holdId}/extend`, {
        token: alice,
        body: { ttlSeconds: 120 },
        headers: k,
      });
    const first = await extend();
    expect(first.status).toBe(200);
    expect(first.body.extensionsUsed).toBe(1);
    const retry = await extend();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    const read = await api.call('GET', `/v1/holds/${h.body.holdId}`, { token: alice });
    expect(read.body.extensionsUsed).toBe(1);
    // the same key for another request (another ttl) is refused, and uses nothing either
    const other = await api.call('POST', `/v1/holds/${h.body.holdId}/extend`, {
      token: alice,
      body: { ttlSeconds: 90 },
      headers: k,
    });
    expect([other.status, other.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect((await api.call('GET', `/v1/holds/${h.body.holdId}`, { token: alice })).body.extensionsUsed).toBe(
      1,
    );
  });

  it('a retried confirm replays its 201 with the same booking', async () => {
    const h = await hold(alice, ['S-B-11']);
    const k = key();
    const confirm = () =>
      api.call('POST', `/v1/holds/${h.body.holdId}/confirm`, {
        token: alice,
        body: { orderId: `order-${n}` },
        headers: k,
      });
    const first = await confirm();
    expect(first.status).toBe(201);
    const retry = await confirm();
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
  });

  it('a key names one request per user: the same key of another user is another request', async () => {
    const bob = await api.token('bob-idem');
    const k = key();
    const a = await hold(alice, ['S-B-12'], k);
    const b = await hold(bob, ['S-B-13'], k);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });
});
