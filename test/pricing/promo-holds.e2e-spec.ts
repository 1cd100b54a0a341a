/**
 * Promo codes on holds, and priced confirms, over real HTTP against real Redis and PostgreSQL: a code
 * discounts only the lines it applies to (percent rounded half up per line, an amount never below 0, a
 * fixed price never raising one), removing it restores the list prices, and an unknown, disabled, not yet
 * valid, expired, used-up or not-applicable code is refused 422 with its reason and changes nothing. A code
 * may unlock hidden ticket types. Confirm stores the lines and sums in the booking and counts the code's use
 * in the booking's transaction (a replay counts nothing more); a code used up by then refuses the confirm
 * 409 with nothing booked, the hold still ACTIVE with its code; staff reads and a cancel show the amounts.
 */
import { Db, openDb } from '@test/support/db';
import { createPricedShow, createPromo, setPrices } from '@test/support/pricing-stage';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let eventId: string;
let alice: string;
let admin: string;

beforeAll(async () => {
  db = await openDb();
  api = await startApi({ RATE_LIMIT_ENABLED: 'false', HOLD_MAX_SEATS_PER_USER: '100' });
  eventId = await createPricedShow(api, 20, 3);
  await setPrices(api, eventId);
  alice = await api.token('alice');
  admin = await api.token('admin-1', ['admin']);
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
  const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
  await createPromo(api, eventId, { code: 'TEN', kind: 'percent', value: 15 });
  await createPromo(api, eventId, {
    code: 'STD50',
    kind: 'percent',
    value: 50,
    appliesTo: { categories: ['standard'] },
  });
  await createPromo(api, eventId, { code: 'BIG', kind: 'amount', value: 6000 });
  await createPromo(api, eventId, { code: 'FIVER', kind: 'fixed-price', value: 3000 });
  await createPromo(api, eventId, { code: 'LATER', kind: 'amount', value: 100, validFrom: inAnHour });
  await createPromo(api, eventId, { code: 'GONE', kind: 'amount', value: 100, validUntil: anHourAgo });
  await createPromo(api, eventId, { code: 'OFF', kind: 'amount', value: 100 });
  await api.call('POST', `/v1/events/${eventId}/promo-codes/OFF/disable`, { token: admin });
  await createPromo(api, eventId, {
    code: 'PREMONLY',
    kind: 'amount',
    value: 100,
    appliesTo: { categories: ['premium'] },
  });
  await createPromo(api, eventId, {
    code: 'COMPS',
    kind: 'fixed-price',
    value: 0,
    appliesTo: { ticketTypes: ['comp'] },
    unlocksTicketTypes: ['comp'],
  });
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const hold = async (body: object) => {
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body });
  expect(r.status).toBe(201);
  return r.body as { holdId: string; total: number };
};
const read = async (holdId: string) => (await api.call('GET', `/v1/holds/${holdId}`, { token: alice })).body;
const apply = (holdId: string, code: string) =>
  api.call('POST', `/v1/holds/${holdId}/promo-code`, { token: alice, body: { code } });
const remove = (holdId: string) => api.call('DELETE', `/v1/holds/${holdId}/promo-code`, { token: alice });
const confirm = (holdId: string, orderId: string) =>
  api.call('POST', `/v1/holds/${holdId}/confirm`, { token: alice, body: { orderId } });
const discounts = (body: { lines: { discount: number }[] }) => body.lines.map((l) => l.discount);
const uses = async (code: string) =>
  (await api.call('GET', `/v1/events/${eventId}/promo-codes/${code}`, { token: admin })).body.uses as number;

it('a percent code discounts every line it applies to, rounded half up per line; removing it restores the prices', async () => {
  // 9000 x 15 % = 1350; 2500 x 15 % = 375; 5000 x 15 % = 750
  const h = await hold({
    seats: [{ seatId: 'P-A-1' }, { seatId: 'S-A-1', ticketType: 'child' }, { seatId: 'S-A-2' }],
  });
  const r = await apply(h.holdId, 'ten');
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ promoCode: 'TEN', subtotal: 16500, discountTotal: 2475, total: 14025 });
  expect(discounts(r.body)).toEqual([1350, 375, 750]);
  expect(await read(h.holdId)).toMatchObject({ promoCode: 'TEN', total: 14025 });
  const off = await remove(h.holdId);
  expect(off.status).toBe(200);
  expect(off.body).toMatchObject({ subtotal: 16500, discountTotal: 0, total: 16500 });
  expect(off.body).not.toHaveProperty('promoCode');
});

it('a code restricted to a category discounts that category only, not the whole hold', async () => {
  const h = await hold({ seatIds: ['P-A-2', 'S-A-3'] });
  const r = await apply(h.holdId, 'STD50');
  expect(discounts(r.body)).toEqual([0, 2500]);
  expect(r.body.total).toBe(9000 + 2500);
});

it('an amount larger than a ticket takes it to 0, never below; a fixed price never raises a cheaper line', async () => {
  const h = await hold({ seats: [{ seatId: 'P-A-3' }, { seatId: 'S-A-4', ticketType: 'child' }] });
  const big = await apply(h.holdId, 'BIG');
  expect(
    big.body.lines.map((l: { unitPrice: number; discount: number }) => l.unitPrice - l.discount),
  ).toEqual([3000, 0]);
  expect(big.body.total).toBe(3000);
  const fiver = await apply(h.holdId, 'FIVER');
  expect(fiver.body).toMatchObject({ promoCode: 'FIVER', total: 3000 + 2500 });
  expect(discounts(fiver.body)).toEqual([6000, 0]);
});

it.each([
  ['an unknown code', 'NOPE', 'UNKNOWN', 'S-B-1'],
  ['a disabled code', 'OFF', 'DISABLED', 'S-B-3'],
  ['a code not valid yet', 'LATER', 'NOT_YET_VALID', 'S-B-5'],
  ['an expired code', 'GONE', 'EXPIRED', 'S-B-7'],
  ['a code for none of its lines', 'PREMONLY', 'NOT_APPLICABLE', 'S-B-9'],
])('refuses %s with its reason (422) and changes nothing', async (_what, code, reason, seat) => {
  const h = await hold({ seatIds: [seat] });
  await apply(h.holdId, 'TEN');
  const before = await read(h.holdId);
  const r = await apply(h.holdId, code);
  expect([r.status, r.body.code, r.body.errors]).toEqual([
    422,
    'PROMO_CODE_REFUSED',
    [{ field: 'code', reason }],
  ]);
  expect(await read(h.holdId)).toEqual({ ...before, expiresInSeconds: expect.any(Number) });
});

describe('a code that unlocks a hidden ticket type', () => {
  it('lets the hold take it; removing the code puts the line back on its default type', async () => {
    const h = await hold({ seatIds: ['P-A-5'] });
    const locked = await api.call('PATCH', `/v1/holds/${h.holdId}/lines/P-A-5`, {
      token: alice,
      body: { ticketType: 'comp' },
    });
    expect([locked.status, locked.body.code]).toEqual([422, 'TICKET_TYPE_LOCKED']);
    expect((await apply(h.holdId, 'COMPS')).status).toBe(200);
    const comp = await api.call('PATCH', `/v1/holds/${h.holdId}/lines/P-A-5`, {
      token: alice,
      body: { ticketType: 'comp' },
    });
    expect(comp.body).toMatchObject({
      total: 0,
      lines: [{ seatId: 'P-A-5', ticketType: 'comp', unitPrice: 0 }],
    });
    const off = await remove(h.holdId);
    expect(off.body).toMatchObject({
      total: 9000,
      lines: [{ ticketType: 'adult', unitPrice: 9000, discount: 0 }],
    });
  });

  it('is taken at hold time with promoCode in the body', async () => {
    const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seats: [{ seatId: 'P-A-7', ticketType: 'comp' }], promoCode: 'comps' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ promoCode: 'COMPS', total: 0 });
    const refused = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: alice,
      body: { seats: [{ seatId: 'P-A-8', ticketType: 'comp' }], promoCode: 'GONE' },
    });
    expect([refused.status, refused.body.code, refused.body.errors[0].reason]).toEqual([
      422,
      'PROMO_CODE_REFUSED',
      'EXPIRED',
    ]);
  });
});

describe('confirm', () => {
  it('stores the lines and sums in the booking, counts the code once (a replay counts nothing more); staff reads and a cancel show them', async () => {
    const h = await hold({ seats: [{ seatId: 'S-C-1' }, { seatId: 'S-C-2', ticketType: 'child' }] });
    await apply(h.holdId, 'TEN');
    const usesBefore = await uses('TEN');
    const r = await confirm(h.holdId, 'order-ten');
    expect(r.status).toBe(201);
    const sold = {
      lines: [
        { seatId: 'S-C-1', category: 'standard', ticketType: 'adult', unitPrice: 5000, discount: 750 },
        { seatId: 'S-C-2', category: 'standard', ticketType: 'child', unitPrice: 2500, discount: 375 },
      ],
      subtotal: 7500,
      discountTotal: 1125,
      total: 6375,
      currency: 'EUR',
      priceListVersion: 1,
      promoCode: 'TEN',
    };
    expect(r.body).toMatchObject(sold);
    expect(await uses('TEN')).toBe(usesBefore + 1);
    expect((await confirm(h.holdId, 'order-ten')).status).toBe(200);
    expect(await uses('TEN')).toBe(usesBefore + 1);
    const [row] = await db.rows(
      'SELECT total, discount_total, currency, promo_code, lines FROM bookings WHERE hold_id = $1',
      [h.holdId],
    );
    expect(row).toEqual({
      total: '6375',
      discount_total: '1125',
      currency: 'EUR',
      promo_code: 'TEN',
      lines: sold.lines,
    });
    expect(await read(h.holdId)).toMatchObject({ status: 'CONFIRMED', ...sold });
    const staff = await api.call('GET', `/v1/events/${eventId}/bookings?orderId=order-ten`, { token: admin });
    expect(staff.body.items[0]).toMatchObject(sold);
    const cancelled = await api.call('POST', `/v1/events/${eventId}/bookings/${r.body.bookingId}/cancel`, {
      token: admin,
      body: { reason: 'customer asked' },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', total: 6375, currency: 'EUR' });
  });

  it('a code used up by the time of confirm: 409 with nothing booked, the hold ACTIVE with its code; without it, it books', async () => {
    await createPromo(api, eventId, { code: 'ONCE', kind: 'amount', value: 1000, maxUses: 1 });
    const first = await hold({ seatIds: ['S-C-5'] });
    const second = await hold({ seatIds: ['S-C-7'] });
    expect((await apply(first.holdId, 'ONCE')).status).toBe(200);
    expect((await apply(second.holdId, 'ONCE')).status).toBe(200);
    expect((await confirm(first.holdId, 'order-once-1')).status).toBe(201);
    const refused = await confirm(second.holdId, 'order-once-2');
    expect([refused.status, refused.body.code, refused.body.errors]).toEqual([
      409,
      'PROMO_CODE_UNAVAILABLE',
      [{ field: 'promoCode', reason: 'USED_UP' }],
    ]);
    expect(await db.count('bookings', "hold_id = $1 AND status = 'CONFIRMED'", [second.holdId])).toBe(0);
    expect(await read(second.holdId)).toMatchObject({ status: 'ACTIVE', promoCode: 'ONCE', total: 4000 });
    expect(await uses('ONCE')).toBe(1);
    const again = await apply(second.holdId, 'ONCE');
    expect([again.status, again.body.errors[0].reason]).toEqual([422, 'USED_UP']);
    expect((await remove(second.holdId)).body.total).toBe(5000);
    const booked = await confirm(second.holdId, 'order-once-2');
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({ total: 5000 });
    expect(booked.body).not.toHaveProperty('promoCode');
  });

  it('a code disabled after it was applied refuses the confirm the same way', async () => {
    await createPromo(api, eventId, { code: 'SHORTLIVED', kind: 'amount', value: 500 });
    const h = await hold({ seatIds: ['S-C-9'] });
    await apply(h.holdId, 'SHORTLIVED');
    await api.call('POST', `/v1/events/${eventId}/promo-codes/SHORTLIVED/disable`, { token: admin });
    const r = await confirm(h.holdId, 'order-disabled');
    expect([r.status, r.body.errors[0].reason]).toEqual([409, 'DISABLED']);
    expect(await read(h.holdId)).toMatchObject({ status: 'ACTIVE', promoCode: 'SHORTLIVED' });
  });
});
