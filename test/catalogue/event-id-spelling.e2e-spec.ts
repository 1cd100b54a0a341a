/**
 * One event, one spelling. UUIDs are case-insensitive, and the API once used the id as typed for the lock
 * keys, the Redis keys, the event registry and the seat cache, but the lower-case form in PostgreSQL and
 * hold ids: Bob got 201 for a seat Alice held, by typing the event id in upper case. Now every path that
 * takes an event id canonicalises it to lower case at the edge (common/pipes/event-id.pipe.ts).
 *
 * Also the seat cache: a least-recently-used map bounded by CATALOGUE_CACHE_MAX_BYTES, on /metrics.
 */
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { CatalogueService } from '../../apps/seat-api/src/catalogue/catalogue.service';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { Api, configWith, createEvent, startApi } from '@test/support/seat-api';

const BUDGET = 256 * 1024;

let api: Api;
let redis: Redis;
let eventId: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  // the cache budget comes in through the injected AppConfig (a typed value), not through process.env
  api = await startApi({}, (m) =>
    m.overrideProvider(AppConfig).useValue(configWith({ CATALOGUE_CACHE_MAX_BYTES: BUDGET })),
  );
  redis = new Redis(process.env.REDIS_URL!);
  eventId = await createEvent(api, 2, 10);
  alice = await api.token('alice');
  bob = await api.token('bob');
});
afterAll(async () => {
  await redis?.quit();
  await api?.close();
});

const hold = (id: string, token: string, seatIds: string[]) =>
  api.call('POST', `/v1/events/${id}/holds`, { token, body: { seatIds } });

/**
 * `count` distinct spellings of a UUID (its letters in random case), or all of them when it has fewer: a
 * UUID with k letters (a-f) has 2^k spellings, and a random v4 UUID has 7 or fewer letters (< 150
 * spellings) in about one case in twenty, where asking for more than exist looped forever.
 */
function spellings(id: string, count: number): string[] {
  const letters = [...id].filter((c) => /[a-f]/i.test(c)).length;
  const target = Math.min(count, 2 ** letters);
  const out = new Set<string>([id.toUpperCase()]);
  while (out.size < target) {
    out.add([...id].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c)).join(''));
  }
  return [...out];
}

/** One sample of a Prometheus metric, as /metrics shows it. */
async function metric(name: string, cache: string): Promise<number> {
  const text = (await api.call('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{cache="${cache}"}`));
  if (!line) {
    throw new Error(`${name}{cache="${cache}"} is not on /metrics`);
  }
  return Number(line.split(' ').pop());
}

describe('an event id in another letter case is the same event', () => {
  it('refuses Bob a seat Alice holds, whichever spelling each used', async () => {
    const a = await hold(eventId, alice, ['S-A-1']);
    expect(a.status).toBe(201);
    const b = await hold(eventId.toUpperCase(), bob, ['S-A-1']);
    expect(b.status).toBe(409);
    expect(b.body).toMatchObject({
      code: 'SEATS_UNAVAILABLE',
      errors: [{ seatId: 'S-A-1', reason: 'HELD' }],
    });
    const map = await api.call('GET', `/v1/events/${spellings(eventId, 2)[1]}/seats`, { token: bob });
    expect(map.status).toBe(200);
    expect(map.body.eventId).toBe(eventId);
    expect(map.body.seats.find((s: { seatId: string }) => s.seatId === 'S-A-1').status).toBe('HELD');
  });

  it('refuses a booked seat under another spelling', async () => {
    const a = await hold(eventId, alice, ['S-A-2']);
    expect(a.status).toBe(201);
    const booked = await api.call('POST', `/v1/holds/${a.body.holdId}/confirm`, {
      token: alice,
      body: { orderId: 'order-spelling-1' },
    });
    expect(booked.status).toBe(201);
    const b = await hold(eventId.toUpperCase(), bob, ['S-A-2']);
    expect(b.status).toBe(409);
    expect(b.body).toMatchObject({
      code: 'SEATS_UNAVAILABLE',
      errors: [{ seatId: 'S-A-2', reason: 'BOOKED' }],
    });
  });

  it('gives a hold made through an upper-case id the canonical id, and every later call finds it', async () => {
    const h = await hold(eventId.toUpperCase(), bob, ['S-B-1']);
    expect(h.status).toBe(201);
    expect(h.body.eventId).toBe(eventId);
    expect((await api.call('GET', `/v1/holds/${h.body.holdId}`, { token: bob })).status).toBe(200);
    const extended = await api.call('POST', `/v1/holds/${h.body.holdId}/extend`, {
      token: bob,
      body: { ttlSeconds: 120 },
    });
    expect(extended.status).toBe(200);
    expect((await hold(eventId, alice, ['S-B-1'])).status).toBe(409);
    expect((await api.call('DELETE', `/v1/holds/${h.body.holdId}`, { token: bob })).status).toBe(204);
    expect((await hold(eventId, alice, ['S-B-1'])).status).toBe(201);
  });

  it('treats a hold id as an exact token: another letter case is no hold (404), and changes nothing', async () => {
    const h = await hold(eventId, bob, ['S-B-2']);
    expect(h.status).toBe(201);
    const id: string = h.body.holdId;
    // the event part is hex (case-insensitive in a UUID), the rest base64url (case matters): neither is folded
    const other = [
      id.slice(0, 32).toUpperCase() + id.slice(32),
      id.slice(0, 32) + id.slice(32).toUpperCase(),
    ];
    for (const spelling of other.filter((s) => s !== id)) {
      for (const [method, path, body] of [
        ['GET', `/v1/holds/${spelling}`, undefined],
        ['POST', `/v1/holds/${spelling}/extend`, { ttlSeconds: 120 }],
        ['POST', `/v1/holds/${spelling}/confirm`, { orderId: 'order-spelling-2' }],
        ['DELETE', `/v1/holds/${spelling}`, undefined],
      ] as const) {
        const r = await api.call(method, path, { token: bob, body });
        expect({ method, status: r.status, code: r.body?.code }).toEqual({
          method,
          status: 404,
          code: 'HOLD_NOT_FOUND',
        });
      }
    }
    const same = await api.call('GET', `/v1/holds/${id}`, { token: bob });
    expect(same.body).toMatchObject({ status: 'ACTIVE', extensionsUsed: 0 });
  });

  it('keeps one cache entry, one registry entry and one set of Redis keys for up to 150 spellings', async () => {
    for (const id of spellings(eventId, 150)) {
      expect((await api.call('GET', `/v1/events/${id}/seats`, { token: bob })).status).toBe(200);
    }
    expect(await metric('memory_cache_entries', 'catalogue_seats')).toBe(1);
    const store = api.app.get(HoldStore);
    const registered = await redis.zrange(
      `${process.env.REDIS_KEY_PREFIX}${store.layout.shardKeys(store.layout.shardOf(eventId)).events}`,
      0,
      -1,
    );
    expect(registered.filter((id) => id.toLowerCase() === eventId)).toEqual([eventId]);
    const keys = await redis.keys(`${process.env.REDIS_KEY_PREFIX}*`);
    expect(keys.filter((k) => /[A-F]/.test(k.replace(process.env.REDIS_KEY_PREFIX!, '')))).toEqual([]);
  });

  const some = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
  it.each([
    ['not a UUID', 'not-a-uuid'],
    ['a UUID in braces', `{${some}}`],
    ['a UUID without dashes', some.replace(/-/g, '')],
    ['a UUID with a space', ` ${some}`],
    ['a UUID of another version', some.replace('-4e6f-', '-1e6f-')],
  ])('refuses %s with 400 naming eventId', async (_what, id) => {
    const r = await api.call('GET', `/v1/events/${encodeURIComponent(id)}/seats`, { token: bob });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'eventId' }] });
  });
});

describe('the seat cache', () => {
  it('stays within CATALOGUE_CACHE_MAX_BYTES, evicting the least recently used event', async () => {
    // 500 seats each: about 100 KB estimated, so the 256 KiB budget holds two of them
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(await createEvent(api, 10, 50));
    }
    const evictionsBefore = await metric('memory_cache_evictions_total', 'catalogue_seats');
    for (const id of ids) {
      const map = await api.call('GET', `/v1/events/${id}/seats`, { token: bob });
      expect(map.body.counts.total).toBe(500);
      expect(await metric('memory_cache_bytes', 'catalogue_seats')).toBeLessThanOrEqual(BUDGET);
    }
    expect(await metric('memory_cache_entries', 'catalogue_seats')).toBeLessThan(ids.length);
    expect(await metric('memory_cache_evictions_total', 'catalogue_seats')).toBeGreaterThan(evictionsBefore);
    // an evicted event is read again from PostgreSQL, whole
    const again = await hold(ids[0].toUpperCase(), alice, ['S-J-50']);
    expect(again.status).toBe(201);
  });

  it('shares one load between concurrent first reads of an event', async () => {
    const fresh = await createEvent(api, 1, 5);
    const catalogue = api.app.get(CatalogueService);
    const [first, second] = [catalogue.seatsOf(fresh), catalogue.seatsOf(fresh)];
    expect(second).toBe(first);
    expect((await first)?.size).toBe(5);
  });
});
