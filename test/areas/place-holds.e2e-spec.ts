/**
 * General-admission areas over real HTTP, Redis and PostgreSQL: a layout with an area, its counts on the
 * event's read, holds of places alone and beside seats (all or none), 409 SOLD_OUT naming what is left,
 * release, extend, confirm (the booking keeps its places), the per-user cap counting places, and many
 * concurrent place holds never taking more than the capacity.
 */
import { Db, openDb } from '@test/support/db';
import { Api, createEventWithFloor, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let admin: string;

beforeAll(async () => {
  api = await startApi({
    HOLD_MAX_SEATS_PER_USER: '8',
    HOLD_MAX_SEATS_PER_HOLD: '8',
    SEAT_LOCK_WAIT_MS: '5000',
  });
  db = await openDb();
  admin = await api.token('admin-1', ['admin']);
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

/** Seats S-A-1..4 and an area FLOOR of `capacity` places. */
const showWithFloor = (capacity: number) => createEventWithFloor(api, capacity);

const floorOf = async (eventId: string, token: string) => {
  const r = await api.call('GET', `/v1/events/${eventId}`, { token });
  expect(r.status).toBe(200);
  return (r.body.areas as { name: string }[]).find((a) => a.name === 'FLOOR');
};

const hold = (eventId: string, token: string, body: unknown) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body });

describe('layout', () => {
  it('an area is a section with a capacity: read back in place, with its counts', async () => {
    const eventId = await showWithFloor(50);
    const token = await api.token('reader');
    const r = await api.call('GET', `/v1/events/${eventId}`, { token });
    expect(r.body.sections).toEqual([
      { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] },
      { name: 'FLOOR', category: 'standing', capacity: 50 },
    ]);
    expect(r.body.areas).toEqual([
      { name: 'FLOOR', category: 'standing', capacity: 50, free: 50, held: 0, booked: 0, blocked: 0 },
    ]);
  });

  it.each([
    ['rows and capacity', { name: 'X', category: 'c', capacity: 10, rows: [{ row: 'A', seats: 1 }] }],
    ['neither', { name: 'X', category: 'c' }],
    ['capacity 0', { name: 'X', category: 'c', capacity: 0 }],
    ['capacity above 100,000', { name: 'X', category: 'c', capacity: 100_001 }],
  ])('refuses a section with %s: 400', async (_what, section) => {
    const r = await api.call('POST', '/v1/events', {
      token: admin,
      body: { name: 'Bad', startsAt: '2030-01-01T20:00:00Z', sections: [section] },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('VALIDATION_FAILED');
  });

  it('counts places and seats together against the event-wide limit, and refuses a repeated name', async () => {
    const over = await api.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Too big',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [
          { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 10 }] },
          { name: 'FLOOR', category: 'standing', capacity: 100_000 },
        ],
      },
    });
    expect(over.status).toBe(400);
    const twice = await api.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Twice',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [
          { name: 'FLOOR', category: 'standing', capacity: 10 },
          { name: 'FLOOR', category: 'standing', capacity: 10 },
        ],
      },
    });
    expect(twice.status).toBe(400);
  });

  it('an event of one area alone has no seats', async () => {
    const r = await api.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Field',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [{ name: 'FIELD', category: 'standing', capacity: 100_000 }],
      },
    });
    expect(r.status).toBe(201);
    expect(r.body.seatCount).toBe(0);
  });
});

describe('holds of places', () => {
  it('holds places alone, shows them on the hold and the area, gives them back on release', async () => {
    const eventId = await showWithFloor(10);
    const token = await api.token('pia');
    const r = await hold(eventId, token, { places: [{ area: 'FLOOR', quantity: 3 }] });
    expect(r.status).toBe(201);
    expect(r.body.seatIds).toEqual([]);
    expect(r.body.places).toEqual([{ area: 'FLOOR', quantity: 3 }]);
    expect(await floorOf(eventId, token)).toMatchObject({ free: 7, held: 3 });

    const read = await api.call('GET', `/v1/holds/${r.body.holdId}`, { token });
    expect(read.body.places).toEqual([{ area: 'FLOOR', quantity: 3 }]);
    const ext = await api.call('POST', `/v1/holds/${r.body.holdId}/extend`, {
      token,
      body: { ttlSeconds: 120 },
    });
    expect(ext.status).toBe(200);
    expect(ext.body.places).toEqual([{ area: 'FLOOR', quantity: 3 }]);

    expect((await api.call('DELETE', `/v1/holds/${r.body.holdId}`, { token })).status).toBe(204);
    expect(await floorOf(eventId, token)).toMatchObject({ free: 10, held: 0 });
    // released twice gives back nothing more
    expect((await api.call('DELETE', `/v1/holds/${r.body.holdId}`, { token })).status).toBe(204);
    expect(await floorOf(eventId, token)).toMatchObject({ free: 10, held: 0 });
  });

  it('refuses 409 SOLD_OUT naming what is left, and takes nothing of a mixed hold (all or none)', async () => {
    const eventId = await showWithFloor(4);
    const [ann, bob] = [await api.token('ann'), await api.token('bob')];
    expect((await hold(eventId, ann, { places: [{ area: 'FLOOR', quantity: 3 }] })).status).toBe(201);
    const r = await hold(eventId, bob, { seatIds: ['S-A-1'], places: [{ area: 'FLOOR', quantity: 2 }] });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('SOLD_OUT');
    expect(r.body.errors).toEqual([{ area: 'FLOOR', free: 1 }]);
    // the seat was not taken either
    const seat = await hold(eventId, bob, { seatIds: ['S-A-1'], places: [{ area: 'FLOOR', quantity: 1 }] });
    expect(seat.status).toBe(201);
    expect(seat.body.seatIds).toEqual(['S-A-1']);
    expect(await floorOf(eventId, bob)).toMatchObject({ free: 0, held: 4 });
  });

  it('a mixed hold refused for its seat takes no place', async () => {
    const eventId = await showWithFloor(4);
    const [ann, bob] = [await api.token('ann2'), await api.token('bob2')];
    expect((await hold(eventId, ann, { seatIds: ['S-A-2'] })).status).toBe(201);
    const r = await hold(eventId, bob, { seatIds: ['S-A-2'], places: [{ area: 'FLOOR', quantity: 2 }] });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('SEATS_UNAVAILABLE');
    expect(await floorOf(eventId, bob)).toMatchObject({ free: 4, held: 0 });
  });

  it('an unknown area is 404 AREA_NOT_FOUND; a bad quantity or a repeated area 400', async () => {
    const eventId = await showWithFloor(4);
    const token = await api.token('cat');
    const unknown = await hold(eventId, token, { places: [{ area: 'BALCONY', quantity: 1 }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('AREA_NOT_FOUND');
    for (const places of [
      [{ area: 'FLOOR', quantity: 11 }],
      [{ area: 'FLOOR', quantity: 0 }],
      [
        { area: 'FLOOR', quantity: 1 },
        { area: 'FLOOR', quantity: 1 },
      ],
      [],
    ]) {
      const r = await hold(eventId, token, { places });
      expect(r.status).toBe(400);
    }
    const withBest = await hold(eventId, token, {
      bestAvailable: { quantity: 1 },
      places: [{ area: 'FLOOR', quantity: 1 }],
    });
    expect(withBest.status).toBe(400);
  });

  it('the per-user cap counts places with seats', async () => {
    const eventId = await showWithFloor(100);
    const token = await api.token('dan');
    expect(
      (await hold(eventId, token, { seatIds: ['S-A-1', 'S-A-2'], places: [{ area: 'FLOOR', quantity: 5 }] }))
        .status,
    ).toBe(201);
    const r = await hold(eventId, token, { places: [{ area: 'FLOOR', quantity: 2 }] });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('HOLD_LIMIT_EXCEEDED');
    expect((await hold(eventId, token, { places: [{ area: 'FLOOR', quantity: 1 }] })).status).toBe(201);
  });

  it('confirm books the places: the booking in PostgreSQL keeps them, the area counts them booked', async () => {
    const eventId = await showWithFloor(10);
    const token = await api.token('eve');
    const h = await hold(eventId, token, { seatIds: ['S-A-3'], places: [{ area: 'FLOOR', quantity: 2 }] });
    const c = await api.call('POST', `/v1/holds/${h.body.holdId}/confirm`, {
      token,
      body: { orderId: 'o-eve' },
    });
    expect(c.status).toBe(201);
    expect(c.body.places).toEqual([{ area: 'FLOOR', quantity: 2 }]);
    expect(await floorOf(eventId, token)).toMatchObject({ free: 8, held: 0, booked: 2 });
    const rows = await db.rows<{ places: unknown; seat_ids: string[] }>(
      `SELECT places, seat_ids FROM bookings WHERE hold_id = $1 AND status = 'CONFIRMED'`,
      [h.body.holdId],
    );
    expect(rows).toEqual([{ places: [{ area: 'FLOOR', quantity: 2 }], seat_ids: ['S-A-3'] }]);
    // a places-only hold confirms too
    const p = await hold(eventId, token, { places: [{ area: 'FLOOR', quantity: 1 }] });
    const c2 = await api.call('POST', `/v1/holds/${p.body.holdId}/confirm`, {
      token,
      body: { orderId: 'o-eve-2' },
    });
    expect(c2.status).toBe(201);
    expect(await floorOf(eventId, token)).toMatchObject({ free: 7, booked: 3 });
    // the same confirm again replays, booking nothing more
    const again = await api.call('POST', `/v1/holds/${p.body.holdId}/confirm`, {
      token,
      body: { orderId: 'o-eve-2' },
    });
    expect(again.status).toBe(200);
    expect(await floorOf(eventId, token)).toMatchObject({ free: 7, booked: 3 });
  });

  it('300 concurrent holds of 1-4 places on 200 places: never more than the capacity, sold out exactly', async () => {
    const eventId = await showWithFloor(200);
    const tokens = await Promise.all(Array.from({ length: 300 }, (_, i) => api.token(`fan-${i}`)));
    const results = await Promise.all(
      tokens.map((token, i) => hold(eventId, token, { places: [{ area: 'FLOOR', quantity: (i % 4) + 1 }] })),
    );
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const won = results
      .filter((r) => r.status === 201)
      .reduce((n, r) => n + (r.body.places as { quantity: number }[])[0].quantity, 0);
    const floor = await floorOf(eventId, tokens[0]);
    expect(won).toBeLessThanOrEqual(200);
    expect(floor).toMatchObject({ held: won, free: 200 - won });
    // every refusal saw too few places for its quantity
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body.code).toBe('SOLD_OUT');
      expect(r.body.errors[0].free).toBeLessThan(4);
    }
    // 300 requests of 2.5 places on average ask for 750: the area sells to within one request of full
    expect(200 - won).toBeLessThan(4);
  });
});
