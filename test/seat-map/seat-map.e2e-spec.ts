/**
 * GET /v1/events/{eventId}/seats answered from each instance's in-memory snapshot, over real HTTP against
 * a private Redis (so `INFO commandstats` sees only this file) and the shared PostgreSQL: correct after
 * every kind of change, lazy expiry included; ETag/If-None-Match; ?section=; public; and what it costs
 * Redis: never HGETALL, HSCAN only to build a cold snapshot or to rebuild one whose log was trimmed.
 */
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { eventually } from '@test/support/eventually';
import { seatStates } from '@test/support/hold-store';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { Api, startApi } from '@test/support/seat-api';

let redis: PrivateRedis;
let api: Api;
let alice: string;
let bob: string;

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startApi({ REDIS_URL: redis.url, HOLD_MIN_TTL_SECONDS: '1' });
  alice = await api.token('alice');
  bob = await api.token('bob');
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

/** An event with the given sections, each of `rows` rows R1.. of `perRow` seats: ids `<section>-R<n>-<m>`. */
async function createEvent(sections: string[], rows: number, perRow: number): Promise<string> {
  const r = await api.call('POST', '/v1/events', {
    token: await api.token('admin', ['admin']),
    body: {
      name: 'Map show',
      startsAt: '2030-01-01T20:00:00Z',
      sections: sections.map((name) => ({
        name,
        category: name === 'VIP' ? 'premium' : 'standard',
        rows: Array.from({ length: rows }, (_, i) => ({ row: `R${i + 1}`, seats: perRow })),
      })),
    },
  });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
}

/** With a token: the map is public, but a caller with a token is rate limited as that user. */
const seatMap = (eventId: string, query = '', headers: Record<string, string> = {}) =>
  api.call('GET', `/v1/events/${eventId}/seats${query}`, { headers, token: bob });
const statuses = (body: { seats: { seatId: string; status: string }[] }) =>
  Object.fromEntries(body.seats.filter((s) => s.status !== 'AVAILABLE').map((s) => [s.seatId, s.status]));
const hold = (token: string, eventId: string, seatIds: string[], ttlSeconds = 60) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { seatIds, ttlSeconds } });

/** Calls and microseconds per command, as Redis counts them. */
async function commandStats(): Promise<Record<string, number>> {
  const info = await redis.client.info('commandstats');
  const calls: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls[m[1]] = Number(m[2]);
  }
  return calls;
}
const grew = (before: Record<string, number>, after: Record<string, number>, cmd: string) =>
  (after[cmd] ?? 0) - (before[cmd] ?? 0);

async function metric(name: string): Promise<number> {
  const text = (await api.call('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('GET /v1/events/:eventId/seats', () => {
  it('is public, carries a version, and never reveals who holds a seat', async () => {
    const eventId = await createEvent(['S'], 1, 4);
    expect((await hold(alice, eventId, ['S-R1-1'])).status).toBe(201);
    const map = await api.call('GET', `/v1/events/${eventId}/seats`); // no token
    expect(map.status).toBe(200);
    expect(map.body).toEqual({
      eventId,
      version: expect.any(Number),
      counts: { total: 4, available: 3, held: 1, booked: 0 },
      seats: expect.any(Array),
    });
    expect(map.body.seats[0]).toEqual({
      eventId,
      seatId: 'S-R1-1',
      section: 'S',
      row: 'R1',
      number: 1,
      category: 'standard',
      status: 'HELD',
    });
    expect(JSON.stringify(map.body)).not.toContain('alice');
    // a token is still welcome (the caller is then rate limited as a user), and a bad one is ignored
    expect((await seatMap(eventId)).status).toBe(200);
    expect((await api.call('GET', `/v1/events/${eventId}/seats`, { token: 'x.y.z' })).status).toBe(200);
  });

  it('follows holds, extensions, releases, lazy expiry and confirms, with a new version each time', async () => {
    const eventId = await createEvent(['S'], 2, 5);
    const versions: number[] = [(await seatMap(eventId)).body.version];
    const expectMap = async (expected: Record<string, string>) => {
      const map = await seatMap(eventId);
      expect(statuses(map.body)).toEqual(expected);
      const held = Object.values(expected).filter((s) => s === 'HELD').length;
      const booked = Object.values(expected).filter((s) => s === 'BOOKED').length;
      expect(map.body.counts).toEqual({ total: 10, available: 10 - held - booked, held, booked });
      versions.push(map.body.version);
    };
    const a = await hold(alice, eventId, ['S-R1-1', 'S-R1-2']);
    await expectMap({ 'S-R1-1': 'HELD', 'S-R1-2': 'HELD' });
    expect(
      (
        await api.call('POST', `/v1/holds/${a.body.holdId}/extend`, {
          token: alice,
          body: { ttlSeconds: 120 },
        })
      ).status,
    ).toBe(200);
    await expectMap({ 'S-R1-1': 'HELD', 'S-R1-2': 'HELD' });
    expect((await api.call('DELETE', `/v1/holds/${a.body.holdId}`, { token: alice })).status).toBe(204);
    await expectMap({});
    const b = await hold(bob, eventId, ['S-R2-1']);
    const confirmed = await api.call('POST', `/v1/holds/${b.body.holdId}/confirm`, {
      token: bob,
      body: { orderId: 'order-map-1' },
    });
    expect(confirmed.status).toBe(201);
    await expectMap({ 'S-R2-1': 'BOOKED' });
    expect(versions).toEqual([...versions].sort((x, y) => x - y));
    expect(new Set(versions.slice(1)).size).toBe(4); // hold, extend, release, confirm: each a new version

    // a hold whose time ran out shows AVAILABLE although no sweeper runs here (SWEEPER_ENABLED=false)
    expect((await hold(alice, eventId, ['S-R2-5'], 1)).status).toBe(201);
    const held = await seatMap(eventId);
    expect(statuses(held.body)['S-R2-5']).toBe('HELD');
    const etag = held.headers.get('etag')!;
    await eventually(
      async () => statuses((await seatMap(eventId)).body)['S-R2-5'] === undefined,
      5000,
      'the lapsed hold shows AVAILABLE',
    );
    const lapsed = await seatMap(eventId);
    expect(lapsed.body.counts).toEqual({ total: 10, available: 9, held: 0, booked: 1 });
    expect(lapsed.headers.get('etag')).not.toBe(etag); // same version, another representation
    expect(await seatStates(api.app.get(HoldStore), eventId)).toEqual(new Map([['S-R2-1', 'BOOKED']]));
  });

  it('answers If-None-Match with 304 and no body until the map changes', async () => {
    const eventId = await createEvent(['S'], 1, 3);
    const first = await seatMap(eventId);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"(\d+:)?\d+(\.\d+)?"$/); // [<epoch>:]<version>, no epoch before a change
    expect(etag).toMatch(new RegExp(`^W/"(\\d+:)?${first.body.version}"$`));
    const same = await seatMap(eventId, '', { 'if-none-match': etag! });
    expect(same.status).toBe(304);
    expect(same.body).toBeUndefined();
    expect(same.headers.get('etag')).toBe(etag);
    expect((await seatMap(eventId, '', { 'if-none-match': `W/"0", ${etag}` })).status).toBe(304);
    await hold(alice, eventId, ['S-R1-3']);
    const changed = await seatMap(eventId, '', { 'if-none-match': etag! });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(statuses(changed.body)).toEqual({ 'S-R1-3': 'HELD' });
  });

  it('filters by ?section= with that section counts, and refuses unknown or malformed sections', async () => {
    const eventId = await createEvent(['STALLS', 'VIP'], 2, 3);
    await hold(alice, eventId, ['VIP-R1-1', 'STALLS-R2-3']);
    const vip = await seatMap(eventId, '?section=VIP');
    expect(vip.status).toBe(200);
    expect(vip.body.seats.map((s: { seatId: string }) => s.seatId)).toEqual([
      'VIP-R1-1',
      'VIP-R1-2',
      'VIP-R1-3',
      'VIP-R2-1',
      'VIP-R2-2',
      'VIP-R2-3',
    ]);
    expect(vip.body.counts).toEqual({ total: 6, available: 5, held: 1, booked: 0 });
    expect(vip.body.seats[0]).toMatchObject({ section: 'VIP', category: 'premium', status: 'HELD' });
    const missing = await seatMap(eventId, '?section=BALCONY');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'SECTION_NOT_FOUND', requestId: expect.any(String) });
    for (const bad of ['?section=a%20b', '?section=VIP&section=STALLS', '?section=', '?sektion=VIP']) {
      const r = await seatMap(eventId, bad);
      expect([bad, r.status, r.body.code]).toEqual([bad, 400, 'VALIDATION_FAILED']);
    }
  });

  it('builds a cold snapshot with HSCAN chunks, then reads only the change log; never HGETALL', async () => {
    const eventId = await createEvent(['S'], 50, 200); // 10,000 seats
    const store = api.app.get(HoldStore);
    for (let i = 0; i < 3000; i += 100) {
      await Promise.all(
        Array.from({ length: 100 }, (_, k) =>
          store.createHold({
            eventId,
            holdId: HoldIds.generate(eventId),
            userId: `u${i + k}`,
            seatIds: [`S-R${Math.floor((i + k) / 200) + 1}-${((i + k) % 200) + 1}`],
            ttlMs: 600_000,
            maxLifetimeMs: 600_000,
            maxSeatsPerUser: 10,
            fencingToken: 0, // no seat lock taken here: 0 is never above the lock's counter
          }),
        ),
      );
    }
    const cold0 = await commandStats();
    const cold = await seatMap(eventId);
    const cold1 = await commandStats();
    expect(cold.body.counts).toEqual({ total: 10_000, available: 7000, held: 3000, booked: 0 });
    expect(grew(cold0, cold1, 'hgetall')).toBe(0);
    expect(grew(cold0, cold1, 'hscan')).toBeGreaterThanOrEqual(3); // chunks of ~1,000 fields

    const refreshes = await metric('seat_map_refreshes_total');
    for (let n = 0; n < 5; n++) {
      expect((await hold(alice, eventId, [`S-R50-${n + 1}`])).status).toBe(201);
      const before = await commandStats();
      const map = await seatMap(eventId);
      const after = await commandStats();
      expect(map.body.counts.held).toBe(3001 + n);
      expect(statuses(map.body)[`S-R50-${n + 1}`]).toBe('HELD');
      expect([grew(before, after, 'hgetall'), grew(before, after, 'hscan')]).toEqual([0, 0]);
    }
    expect((await metric('seat_map_refreshes_total')) - refreshes).toBe(5); // one change-log read per read
  });

  it('builds a cold snapshot that agrees with Redis: lapsed holds free, confirms in flight held', async () => {
    const eventId = await createEvent(['S'], 1, 8);
    const store = api.app.get(HoldStore);
    const take = async (seat: string, ttlMs: number) => {
      const r = await store.createHold({
        eventId,
        holdId: HoldIds.generate(eventId),
        userId: `u-${seat}`,
        seatIds: [seat],
        ttlMs,
        maxLifetimeMs: 600_000,
        maxSeatsPerUser: 10,
        fencingToken: 0,
      });
      if (!r.ok) {
        throw new Error(r.error);
      }
      return r.hold;
    };
    const confirm = (h: { holdId: string; userId: string }, confirmTimeoutMs: number) =>
      store.beginConfirm({
        holdId: h.holdId,
        userId: h.userId,
        orderId: `o-${h.holdId}`,
        fencingToken: 0,
        confirmTimeoutMs,
      });
    await take('S-R1-1', 600_000); // held
    await take('S-R1-2', 1); // lapses at once, never swept here
    await confirm(await take('S-R1-3', 600_000), 1); // a confirm stuck past its deadline: still HELD
    await confirm(await take('S-R1-4', 600_000), 30_000); // a confirm in flight
    const booked = await take('S-R1-5', 600_000);
    await confirm(booked, 30_000);
    await store.finishConfirm({ holdId: booked.holdId, orderId: `o-${booked.holdId}` });
    await store.markBooked(eventId, ['S-R1-6']);
    const oracle = Object.fromEntries(await seatStates(store, eventId)); // the full-scan script
    expect(oracle).toEqual({
      'S-R1-1': 'HELD',
      'S-R1-3': 'HELD',
      'S-R1-4': 'HELD',
      'S-R1-5': 'BOOKED',
      'S-R1-6': 'BOOKED',
    });
    // cold: built by HSCAN chunks, not from the log (trimmed, so the log cannot tell it)
    await redis.client.xtrim(
      `${process.env.REDIS_KEY_PREFIX}${api.app.get(HoldStore).layout.eventKeys(eventId).changes}`,
      'MAXLEN',
      0,
    );
    const map = await seatMap(eventId);
    expect(statuses(map.body)).toEqual(oracle);
    expect(map.body.counts).toEqual({ total: 8, available: 3, held: 3, booked: 2 });
  });

  it('lets concurrent reads of a cold snapshot share one build', async () => {
    const eventId = await createEvent(['S'], 2, 10);
    await hold(alice, eventId, ['S-R1-1']);
    const builds = await metric('seat_map_builds_total');
    const maps = await Promise.all(Array.from({ length: 20 }, () => seatMap(eventId)));
    expect(new Set(maps.map((m) => m.body.counts.held))).toEqual(new Set([1]));
    expect((await metric('seat_map_builds_total')) - builds).toBe(1);
  });

  it('rebuilds a snapshot whose version the trimmed change log no longer covers', async () => {
    const eventId = await createEvent(['S'], 1, 10);
    await hold(alice, eventId, ['S-R1-1']);
    expect(statuses((await seatMap(eventId)).body)).toEqual({ 'S-R1-1': 'HELD' });
    const b = await hold(bob, eventId, ['S-R1-2', 'S-R1-3']);
    await api.call('DELETE', `/v1/holds/${b.body.holdId}`, { token: bob });
    await hold(bob, eventId, ['S-R1-4']);
    // the log forgets everything up to now; the snapshot is three versions behind it
    await redis.client.xtrim(
      `${process.env.REDIS_KEY_PREFIX}${api.app.get(HoldStore).layout.eventKeys(eventId).changes}`,
      'MAXLEN',
      0,
    );
    await hold(alice, eventId, ['S-R1-9']);
    const builds = await metric('seat_map_builds_total');
    const before = await commandStats();
    const map = await seatMap(eventId);
    expect(statuses(map.body)).toEqual({ 'S-R1-1': 'HELD', 'S-R1-4': 'HELD', 'S-R1-9': 'HELD' });
    expect(map.body.counts).toMatchObject({ held: 3 });
    expect(grew(before, await commandStats(), 'hscan')).toBeGreaterThanOrEqual(1);
    expect((await metric('seat_map_builds_total')) - builds).toBe(1);
  });

  it('answers 404 for an unknown event', async () => {
    const r = await seatMap('0b7c8f7e-1d2a-4c3b-9e8f-7a6b5c4d3e2f');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('EVENT_NOT_FOUND');
  });
});
