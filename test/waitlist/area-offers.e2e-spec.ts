/**
 * The waiting list of a general-admission area, with apps/waitlist in a child process, the real seat API
 * (its relay publishes seat.status), PostgreSQL, Redis and Kafka:
 *
 * - joining names an area instead of a category (validated at the edge: an unknown area, an area and a
 *   category, a quantity out of 1-10, seats of a show of areas alone); each area has its own line;
 * - places freed by a release go to the first entries of that area whose quantity they cover (a larger
 *   party asks when the area may have more free), once, though the change is delivered three times;
 *   the seats the same release freed go to the seat entries, never to an area's, nor places to a seat
 *   entry's; an offer of places released unbooked lapses and its places go on;
 * - places that run out (the sweeper's SeatExpired of an area) are offered, and so are those of a booking
 *   staff cancel (BookingCancelled with its places);
 * - an entry that leaves before its turn gets none; one whose own hold the seat API refuses keeps its place;
 * - on a priced show, the offer of places is priced as any hold of them.
 */
import { holdReleasedEvent, type PlacesData } from '@app/contracts';
import { PRICES } from '@test/support/pricing-stage';
import { eventually } from '../support/eventually';
import { WaitlistHarness } from './harness';

jest.setTimeout(180_000);

let h: WaitlistHarness;
let admin: string;

beforeAll(async () => {
  h = await WaitlistHarness.start({
    SWEEPER_ENABLED: 'true',
    HOLD_MIN_TTL_SECONDS: '1',
    SWEEP_INTERVAL_MS: '200',
    OUTBOX_RELAY_INTERVAL_MS: '100',
  });
  admin = await h.api.token('admin-1', ['admin']);
  await h.consumer();
});
afterAll(() => h?.close());

/** A show of seats S-A-1..`seats` and a standing area FLOOR of `capacity` places (none when 0). */
async function show(seats: number, capacity: number): Promise<string> {
  const sections: object[] = [{ name: 'FLOOR', category: 'standing', capacity }];
  if (seats > 0) {
    sections.unshift({ name: 'S', category: 'standard', rows: [{ row: 'A', seats }] });
  }
  const r = await h.api.call('POST', '/v1/events', {
    token: admin,
    body: { name: 'Gig', startsAt: '2030-01-01T20:00:00Z', sections },
  });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
}

const join = async (eventId: string, user: string, body: object) =>
  h.api.call('POST', `/v1/events/${eventId}/waitlist`, { token: await h.api.token(user), body });

async function joined(eventId: string, user: string, body: object): Promise<string> {
  const r = await join(eventId, user, body);
  expect(r.status).toBe(201);
  return r.body.entryId as string;
}

/** The user's hold, as they read it. */
const holdOf = async (user: string, holdId: string) =>
  (await h.api.call('GET', `/v1/holds/${holdId}`, { token: await h.api.token(user) })).body as {
    status: string;
    seatIds: string[];
    places?: PlacesData[];
  };

const status = async (eventId: string) => (await h.entries(eventId)).map((e) => [e.user_id, e.status]);

it('joins an area, in a line of its own, and refuses what could never be offered: 400 naming the field', async () => {
  const eventId = await show(2, 10);
  const seatEntry = await joined(eventId, 'wl-j1', { quantity: 1 });
  const areaEntry = await joined(eventId, 'wl-j2', { quantity: 3, area: 'FLOOR' });
  const r = await h.api.call('GET', `/v1/waitlist/${areaEntry}`, { token: await h.api.token('wl-j2') });
  expect([r.status, r.body]).toEqual([
    200,
    { entryId: areaEntry, eventId, quantity: 3, area: 'FLOOR', status: 'WAITING', position: 1 },
  ]);
  const seats = await h.api.call('GET', `/v1/waitlist/${seatEntry}`, { token: await h.api.token('wl-j1') });
  expect([seats.body.position, seats.body.area]).toEqual([1, undefined]);

  const areasOnly = await show(0, 10);
  const cases: [string, object, string][] = [
    [eventId, { quantity: 1, area: 'BALCONY' }, 'area'], // no such area
    [eventId, { quantity: 1, area: 'FLOOR', category: 'standing' }, 'area'],
    [eventId, { quantity: 11, area: 'FLOOR' }, 'quantity'],
    [eventId, { quantity: 0, area: 'FLOOR' }, 'quantity'],
    [eventId, { quantity: 1, area: 'NO SPACES' }, 'area'],
    [eventId, { quantity: 1, area: 7 }, 'area'],
    [areasOnly, { quantity: 1 }, 'area'], // no seats to wait for
  ];
  for (const [event, body, field] of cases) {
    const refused = await join(event, 'wl-j3', body);
    expect([refused.status, refused.body.code, refused.body.errors?.[0]?.field]).toEqual([
      400,
      'VALIDATION_FAILED',
      field,
    ]);
  }
  expect(await h.entries(areasOnly)).toEqual([]);
  expect((await join(areasOnly, 'wl-j3', { quantity: 2, area: 'FLOOR' })).status).toBe(201);
});

it('freed places go to the first fitting entries of their area once, though delivered three times; seats to seat entries', async () => {
  const eventId = await show(2, 4);
  const seatIds = ['S-A-1', 'S-A-2'];
  const places = [{ area: 'FLOOR', quantity: 4 }];
  const sold = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { seatIds, places, ttlSeconds: 600 },
  });
  expect(sold.status).toBe(201);
  await joined(eventId, 'wl-s1', { quantity: 2 }); // seats
  await joined(eventId, 'wl-p1', { quantity: 3, area: 'FLOOR' });
  await joined(eventId, 'wl-p2', { quantity: 2, area: 'FLOOR' }); // one place is left after wl-p1: too few
  await joined(eventId, 'wl-p3', { quantity: 1, area: 'FLOOR' });
  await joined(eventId, 'wl-p4', { quantity: 2, area: 'FLOOR' });

  const released = await h.api.call('DELETE', `/v1/holds/${sold.body.holdId}`, {
    token: await h.api.token('buyer'),
  });
  expect(released.status).toBe(204);
  // the relay publishes it once; two more copies of it, under its id
  const ce = holdReleasedEvent(
    { eventId, holdId: sold.body.holdId, userId: 'buyer', seatIds, places, reason: 'RELEASED' },
    new Date(),
  );
  await h.publish(ce, 2);

  await eventually(
    async () => (await h.offersOf(ce.id)).length === 3 && (await h.drained()),
    60_000,
    'every copy read and the offers made',
  );
  expect(await status(eventId)).toEqual([
    ['wl-s1', 'OFFERED'],
    ['wl-p1', 'OFFERED'],
    ['wl-p2', 'WAITING'],
    ['wl-p3', 'OFFERED'],
    ['wl-p4', 'WAITING'],
  ]);
  const rows = await h.entries(eventId);
  const offered = async (user: string) => {
    const e = rows.find((r) => r.user_id === user)!;
    const live = await h.liveHolds(eventId, user);
    expect(live.map((l) => l.holdId)).toEqual([e.hold_id]); // one hold each, the offer's
    const held = await holdOf(user, e.hold_id!);
    return [held.seatIds, held.places];
  };
  expect(await offered('wl-s1')).toEqual([seatIds, undefined]);
  expect(await offered('wl-p1')).toEqual([[], [{ area: 'FLOOR', quantity: 3 }]]);
  expect(await offered('wl-p3')).toEqual([[], [{ area: 'FLOOR', quantity: 1 }]]);
  for (const user of ['wl-p2', 'wl-p4']) {
    expect(await h.liveHolds(eventId, user)).toEqual([]);
  }
  const offers = await h.offersOf(ce.id);
  expect(offers.map((o) => o.seat_ids.length).sort()).toEqual([0, 0, 2]);
  await eventually(() => h.announced(eventId).size === 3, 30_000, 'the three offers announced');
  const announced = h.probe
    .values<{ type: string; data: { eventId: string; userId: string; places?: PlacesData[] } }>()
    .filter((m) => m.type === 'WaitlistOfferMade' && m.data.eventId === eventId && m.data.userId === 'wl-p1');
  expect(announced[0].data.places).toEqual([{ area: 'FLOOR', quantity: 3 }]);

  // wl-p1 lets its offer go: it lapses, and its three places go on, to wl-p2 first
  const p1 = rows.find((r) => r.user_id === 'wl-p1')!;
  const let_go = await h.api.call('DELETE', `/v1/holds/${p1.hold_id}`, { token: await h.api.token('wl-p1') });
  expect(let_go.status).toBe(204);
  await eventually(
    async () => (await status(eventId))[2][1] === 'OFFERED' && (await h.drained()),
    60_000,
    'the lapsed places offered on',
  );
  expect(await status(eventId)).toEqual([
    ['wl-s1', 'OFFERED'],
    ['wl-p1', 'LAPSED'],
    ['wl-p2', 'OFFERED'],
    ['wl-p3', 'OFFERED'],
    ['wl-p4', 'WAITING'], // one place left over: not enough for two
  ]);
  const p2 = (await h.entries(eventId))[2];
  expect((await holdOf('wl-p2', p2.hold_id!)).places).toEqual([{ area: 'FLOOR', quantity: 2 }]);
  const floor = await h.api.call('GET', `/v1/events/${eventId}`, { token: admin });
  expect(floor.body.areas[0]).toMatchObject({ free: 1, held: 3 });
});

it('places that run out are offered to the entry of their area', async () => {
  const eventId = await show(2, 2);
  const entryId = await joined(eventId, 'wl-e1', { quantity: 2, area: 'FLOOR' });
  const held = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { places: [{ area: 'FLOOR', quantity: 2 }], ttlSeconds: 1 },
  });
  expect(held.status).toBe(201);

  await eventually(async () => (await status(eventId))[0][1] === 'OFFERED', 60_000, 'offered on expiry');
  const entry = await h.api.call('GET', `/v1/waitlist/${entryId}`, { token: await h.api.token('wl-e1') });
  const offer = await holdOf('wl-e1', entry.body.holdId);
  expect([offer.status, offer.places]).toEqual(['ACTIVE', [{ area: 'FLOOR', quantity: 2 }]]);
  // the offer came from the sweeper's SeatExpired of the area (seatId the area's name)
  const [row] = await h.db.rows<{ source_event_id: string }>(
    `SELECT source_event_id FROM waitlist_offers WHERE entry_id = $1`,
    [entryId],
  );
  expect(row.source_event_id).toBe(`${held.body.holdId}:FLOOR`);
});

it('an entry that leaves before its turn gets none: the places go to the next', async () => {
  const eventId = await show(0, 3);
  const sold = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { places: [{ area: 'FLOOR', quantity: 3 }], ttlSeconds: 600 },
  });
  expect(sold.status).toBe(201);
  const leaver = await joined(eventId, 'wl-x1', { quantity: 3, area: 'FLOOR' });
  await joined(eventId, 'wl-x2', { quantity: 3, area: 'FLOOR' });
  const left = await h.api.call('DELETE', `/v1/waitlist/${leaver}`, { token: await h.api.token('wl-x1') });
  expect(left.status).toBe(204);

  expect(
    (await h.api.call('DELETE', `/v1/holds/${sold.body.holdId}`, { token: await h.api.token('buyer') }))
      .status,
  ).toBe(204);
  await eventually(async () => (await status(eventId))[1][1] === 'OFFERED', 60_000, 'the next entry offered');
  expect(await status(eventId)).toEqual([
    ['wl-x1', 'LEFT'],
    ['wl-x2', 'OFFERED'],
  ]);
  expect(await h.liveHolds(eventId, 'wl-x1')).toEqual([]);
});

it("a booking of places cancelled by staff: its places are offered to the area's entry", async () => {
  const eventId = await show(0, 2);
  const buyer = await h.api.token('buyer');
  const held = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: buyer,
    body: { places: [{ area: 'FLOOR', quantity: 2 }], ttlSeconds: 600 },
  });
  const booked = await h.api.call('POST', `/v1/holds/${held.body.holdId}/confirm`, {
    token: buyer,
    body: { orderId: 'o-area-1' },
  });
  expect(booked.status).toBe(201);
  const entryId = await joined(eventId, 'wl-c1', { quantity: 2, area: 'FLOOR' });
  const cancelled = await h.api.call(
    'POST',
    `/v1/events/${eventId}/bookings/${booked.body.bookingId}/cancel`,
    {
      token: admin,
      body: { reason: 'refund' },
    },
  );
  expect(cancelled.status).toBe(200);

  await eventually(async () => (await status(eventId))[0][1] === 'OFFERED', 60_000, 'offered on the cancel');
  const entry = await h.api.call('GET', `/v1/waitlist/${entryId}`, { token: await h.api.token('wl-c1') });
  expect((await holdOf('wl-c1', entry.body.holdId)).places).toEqual([{ area: 'FLOOR', quantity: 2 }]);
  const [row] = await h.db.rows<{ source_event_id: string }>(
    `SELECT source_event_id FROM waitlist_offers WHERE entry_id = $1`,
    [entryId],
  );
  expect(row.source_event_id).toBe(booked.body.bookingId); // the BookingCancelled's id
});

it("on a priced show the offer of places is priced as any hold of them: a line per place at its category's default type", async () => {
  const eventId = await show(2, 2);
  const standing = {
    key: 'standing',
    ticketTypes: [
      { key: 'adult', label: 'Adult', price: 3000 },
      { key: 'child', label: 'Child', price: 1500 },
    ],
  };
  const priced = await h.api.call('PUT', `/v1/events/${eventId}/pricing`, {
    token: admin,
    body: { ...PRICES, categories: [...PRICES.categories.filter((c) => c.key === 'standard'), standing] },
  });
  expect(priced.status).toBe(200);
  const sold = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { places: [{ area: 'FLOOR', quantity: 2 }], ttlSeconds: 600 },
  });
  expect(sold.status).toBe(201);
  const entryId = await joined(eventId, 'wl-m1', { quantity: 2, area: 'FLOOR' });
  expect(
    (await h.api.call('DELETE', `/v1/holds/${sold.body.holdId}`, { token: await h.api.token('buyer') }))
      .status,
  ).toBe(204);

  await eventually(async () => (await status(eventId))[0][1] === 'OFFERED', 60_000, 'offered');
  const entry = await h.api.call('GET', `/v1/waitlist/${entryId}`, { token: await h.api.token('wl-m1') });
  const offer = await h.api.call('GET', `/v1/holds/${entry.body.holdId}`, {
    token: await h.api.token('wl-m1'),
  });
  expect(offer.body.lines.map((l: { seatId: string; unitPrice: number }) => [l.seatId, l.unitPrice])).toEqual(
    [
      ['FLOOR.1', 3000],
      ['FLOOR.2', 3000],
    ],
  );
  expect(offer.body).toMatchObject({ total: 6000, currency: 'EUR' });
});

it('an entry whose own offer hold is refused (its user at their hold limit) keeps its place; the places go on', async () => {
  const eventId = await show(10, 1);
  const sold = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { places: [{ area: 'FLOOR', quantity: 1 }], ttlSeconds: 600 },
  });
  expect(sold.status).toBe(201);
  // wl-k1 holds the ten seats the show allows a user (HOLD_MAX_SEATS_PER_USER, places counted too)
  const full = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('wl-k1'),
    body: { seatIds: Array.from({ length: 10 }, (_, i) => `S-A-${i + 1}`), ttlSeconds: 600 },
  });
  expect(full.status).toBe(201);
  const passedOver = await joined(eventId, 'wl-k1', { quantity: 1, area: 'FLOOR' });
  await joined(eventId, 'wl-k2', { quantity: 1, area: 'FLOOR' });
  expect(
    (await h.api.call('DELETE', `/v1/holds/${sold.body.holdId}`, { token: await h.api.token('buyer') }))
      .status,
  ).toBe(204);

  await eventually(async () => (await status(eventId))[1][1] === 'OFFERED', 60_000, 'the next entry offered');
  const read = await h.api.call('GET', `/v1/waitlist/${passedOver}`, { token: await h.api.token('wl-k1') });
  expect(read.body).toMatchObject({
    status: 'WAITING',
    position: 1,
    skipped: { reason: 'HOLD_LIMIT_EXCEEDED' },
  });
  expect((await h.liveHolds(eventId, 'wl-k1')).map((x) => x.holdId)).toEqual([full.body.holdId]);
});
