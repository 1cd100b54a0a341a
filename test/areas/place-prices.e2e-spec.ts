/**
 * Places of a general-admission area priced by the area's category through the one price calculator: the
 * price list must price the area's category, a hold of places carries a line per place naming its area
 * (`FLOOR.1`...), ticketTypes counts go to its places, a line's type can be changed, a promo code applies,
 * and the booking keeps the lines.
 */
import { Db, openDb } from '@test/support/db';
import { createPromo, PRICES } from '@test/support/pricing-stage';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let admin: string;
let eventId: string;

const WITH_STANDING = {
  ...PRICES,
  categories: [
    ...PRICES.categories,
    {
      key: 'standing',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 3000 },
        { key: 'child', label: 'Child', price: 1500 },
      ],
    },
  ],
};

beforeAll(async () => {
  api = await startApi({});
  db = await openDb();
  admin = await api.token('admin-1', ['admin']);
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Priced gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] },
        { name: 'FLOOR', category: 'standing', capacity: 100 },
      ],
    },
  });
  expect(r.status).toBe(201);
  eventId = r.body.eventId as string;
});
afterAll(async () => {
  await db?.close();
  await api?.close();
});

it('the price list must price the area category, and may', async () => {
  const without = await api.call('PUT', `/v1/events/${eventId}/pricing`, {
    token: admin,
    body: { ...PRICES, categories: PRICES.categories.filter((c) => c.key === 'standard') },
  });
  expect(without.status).toBe(400);
  expect(JSON.stringify(without.body.errors)).toContain('standing');
  const ok = await api.call('PUT', `/v1/events/${eventId}/pricing`, {
    token: admin,
    body: { ...WITH_STANDING, categories: WITH_STANDING.categories.filter((c) => c.key !== 'premium') },
  });
  expect(ok.status).toBe(200);
});

it('a hold of a seat and places is priced line by line; counts of ticket types go to its places', async () => {
  const token = await api.token('pia');
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: {
      seatIds: ['S-A-1'],
      places: [{ area: 'FLOOR', quantity: 3 }],
      ticketTypes: { adult: 2, child: 1 },
    },
  });
  expect(r.status).toBe(201);
  expect(r.body.lines).toEqual([
    { seatId: 'S-A-1', category: 'standard', ticketType: 'adult', unitPrice: 5000, discount: 0 },
    { seatId: 'FLOOR.1', category: 'standing', ticketType: 'adult', unitPrice: 3000, discount: 0 },
    { seatId: 'FLOOR.2', category: 'standing', ticketType: 'adult', unitPrice: 3000, discount: 0 },
    { seatId: 'FLOOR.3', category: 'standing', ticketType: 'child', unitPrice: 1500, discount: 0 },
  ]);
  expect(r.body).toMatchObject({ subtotal: 12500, total: 12500, currency: 'EUR' });

  // a place's line takes another type, re-priced under the hold's version
  const patched = await api.call('PATCH', `/v1/holds/${r.body.holdId}/lines/FLOOR.1`, {
    token,
    body: { ticketType: 'child' },
  });
  expect(patched.status).toBe(200);
  expect(patched.body.total).toBe(11000);

  const code = 'FLOOR10';
  await createPromo(api, eventId, {
    code,
    kind: 'percent',
    value: 10,
    appliesTo: { categories: ['standing'] },
  });
  const applied = await api.call('POST', `/v1/holds/${r.body.holdId}/promo-code`, { token, body: { code } });
  expect(applied.status).toBe(200);
  // 10 % of the standing lines alone: 1500 + 1500 + 3000 -> 600 off
  expect(applied.body).toMatchObject({ subtotal: 11000, discountTotal: 600, total: 10400 });

  const c = await api.call('POST', `/v1/holds/${r.body.holdId}/confirm`, { token, body: { orderId: 'o-1' } });
  expect(c.status).toBe(201);
  expect(c.body).toMatchObject({ total: 10400, places: [{ area: 'FLOOR', quantity: 3 }] });
  const [row] = await db.rows<{ total: string; lines: { seatId: string }[] }>(
    `SELECT total, lines FROM bookings WHERE hold_id = $1 AND status = 'CONFIRMED'`,
    [r.body.holdId],
  );
  expect(Number(row.total)).toBe(10400);
  expect(row.lines.map((l) => l.seatId)).toEqual(['S-A-1', 'FLOOR.1', 'FLOOR.2', 'FLOOR.3']);
});

it('refuses counts of ticket types that do not add up to the places, and an unknown type', async () => {
  const token = await api.token('bo');
  const bad = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: { places: [{ area: 'FLOOR', quantity: 2 }], ticketTypes: { adult: 3 } },
  });
  expect(bad.status).toBe(400);
  const unknown = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: { places: [{ area: 'FLOOR', quantity: 1 }], ticketTypes: { senior: 1 } },
  });
  expect(unknown.status).toBe(400);
  // nothing was taken
  const floor = (await api.call('GET', `/v1/events/${eventId}`, { token })).body.areas[0];
  expect(floor.held).toBe(0);
});
