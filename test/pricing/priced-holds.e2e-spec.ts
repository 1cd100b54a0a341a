/**
 * Priced holds over real HTTP, against real Redis and PostgreSQL: a hold names a ticket type for each seat
 * (or takes its category's default), and its answer and GET carry its lines, sums, currency and price-list
 * version; the ticket-type rules (unknown 400, hidden without a code 422, maxPerHold 422) refuse with
 * nothing held; a line's type changes by PATCH, re-priced under the hold's own version; and a show without
 * a price list holds as before, unpriced.
 */
import { Db, openDb } from '@test/support/db';
import { createPricedShow, PRICES, setPrices } from '@test/support/pricing-stage';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let eventId: string;
let alice: string;
let bob: string;

beforeAll(async () => {
  db = await openDb();
  api = await startApi({ RATE_LIMIT_ENABLED: 'false', HOLD_MAX_SEATS_PER_USER: '100' });
  eventId = await createPricedShow(api, 20, 3);
  await setPrices(api, eventId);
  alice = await api.token('alice');
  bob = await api.token('bob');
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const hold = (body: object, token = alice, on = eventId) =>
  api.call('POST', `/v1/events/${on}/holds`, { token, body });
const read = (holdId: string, token = alice) => api.call('GET', `/v1/holds/${holdId}`, { token });
const patch = (holdId: string, seatId: string, ticketType: unknown, token = alice) =>
  api.call('PATCH', `/v1/holds/${holdId}/lines/${seatId}`, { token, body: { ticketType } });
const seatStatus = async (seatId: string) =>
  (
    (await api.call('GET', `/v1/events/${eventId}/seats`)).body.seats as { seatId: string; status: string }[]
  ).find((s) => s.seatId === seatId)!.status;
const line = (seatId: string, category: string, ticketType: string, unitPrice: number, discount = 0) => ({
  seatId,
  category,
  ticketType,
  unitPrice,
  discount,
});

it("a hold by seat ids sells each seat as its category's default type, and says so in its answer and GET", async () => {
  const r = await hold({ seatIds: ['S-A-2', 'P-A-1'] });
  expect(r.status).toBe(201);
  const priced = {
    lines: [line('P-A-1', 'premium', 'adult', 9000), line('S-A-2', 'standard', 'adult', 5000)],
    subtotal: 14000,
    discountTotal: 0,
    total: 14000,
    currency: 'EUR',
    priceListVersion: 1,
  };
  expect(r.body).toMatchObject({ seatIds: ['P-A-1', 'S-A-2'], ...priced });
  expect(r.body).not.toHaveProperty('promoCode');
  expect((await read(r.body.holdId)).body).toMatchObject(priced);
});

it('a hold names a ticket type per seat; three categories of types, three prices', async () => {
  const r = await hold({
    seats: [
      { seatId: 'P-A-2', ticketType: 'child' },
      { seatId: 'S-A-3', ticketType: 'child' },
      { seatId: 'S-A-4' },
    ],
  });
  expect(r.status).toBe(201);
  expect(r.body.lines).toEqual([
    line('P-A-2', 'premium', 'child', 4500),
    line('S-A-3', 'standard', 'child', 2500),
    line('S-A-4', 'standard', 'adult', 5000),
  ]);
  expect(r.body.total).toBe(12000);
});

it.each([
  [
    'an unknown ticket type',
    [{ seatId: 'S-B-1', ticketType: 'senior' }],
    400,
    'VALIDATION_FAILED',
    'seats[0].ticketType',
  ],
  [
    'a hidden type without a code that unlocks it',
    [{ seatId: 'P-A-5', ticketType: 'comp' }],
    422,
    'TICKET_TYPE_LOCKED',
    'seats[0].ticketType',
  ],
  [
    'more than maxPerHold of a type',
    ['P-A-6', 'P-A-7', 'P-A-8'].map((seatId) => ({ seatId, ticketType: 'child' })),
    422,
    'TICKET_TYPE_LIMIT_EXCEEDED',
    'ticketType',
  ],
  [
    'a type of another category',
    [{ seatId: 'S-B-2', ticketType: 'comp' }],
    400,
    'VALIDATION_FAILED',
    'seats[0].ticketType',
  ],
])('refuses %s, and holds nothing', async (_what, seats, status, code, field) => {
  const r = await hold({ seats });
  expect([r.status, r.body.code]).toEqual([status, code]);
  expect(JSON.stringify(r.body.errors)).toContain(field);
  for (const s of seats) {
    expect(await seatStatus(s.seatId)).toBe('AVAILABLE');
  }
});

it('refuses a body that names its seats two ways, or repeats one (400)', async () => {
  const both = await hold({ seatIds: ['S-B-3'], seats: [{ seatId: 'S-B-4' }] });
  expect([both.status, both.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  const twice = await hold({ seats: [{ seatId: 'S-B-3' }, { seatId: 'S-B-3', ticketType: 'child' }] });
  expect([twice.status, twice.body.code]).toEqual([400, 'VALIDATION_FAILED']);
});

describe('best available', () => {
  it('takes ticketTypes counts: the picked seats take them in the order given', async () => {
    const r = await hold({
      bestAvailable: { quantity: 3, category: 'standard' },
      ticketTypes: { adult: 1, child: 2 },
    });
    expect(r.status).toBe(201);
    expect(r.body.lines.map((l: { ticketType: string }) => l.ticketType)).toEqual([
      'adult',
      'child',
      'child',
    ]);
    expect(r.body.total).toBe(5000 + 2500 + 2500);
  });

  it('without a category, the types must be sold in every category it may pick from', async () => {
    const ok = await hold({ bestAvailable: { quantity: 2 }, ticketTypes: { child: 2 } });
    expect(ok.status).toBe(201);
    // comp is hidden in premium (checked first, 422) and not sold in standard at all
    const comp = await hold({ bestAvailable: { quantity: 1 }, ticketTypes: { comp: 1 } });
    expect([comp.status, comp.body.code]).toEqual([422, 'TICKET_TYPE_LOCKED']);
    const senior = await hold({ bestAvailable: { quantity: 1 }, ticketTypes: { senior: 1 } });
    expect([senior.status, senior.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('refuses counts that do not add up to the quantity, or ticketTypes without bestAvailable (400)', async () => {
    const r = await hold({ bestAvailable: { quantity: 3 }, ticketTypes: { adult: 1 } });
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const without = await hold({ seatIds: ['S-C-1'], ticketTypes: { adult: 1 } });
    expect([without.status, without.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe("changing a line's ticket type", () => {
  it('re-prices the hold under its own version; the other lines keep theirs', async () => {
    const h = await hold({ seats: [{ seatId: 'S-C-2' }, { seatId: 'S-C-3', ticketType: 'child' }] });
    const r = await patch(h.body.holdId, 'S-C-2', 'child');
    expect(r.status).toBe(200);
    expect(r.body.lines).toEqual([
      line('S-C-2', 'standard', 'child', 2500),
      line('S-C-3', 'standard', 'child', 2500),
    ]);
    expect(r.body.total).toBe(5000);
    expect((await read(h.body.holdId)).body.total).toBe(5000);
    const back = await patch(h.body.holdId, 'S-C-3', 'adult');
    expect(back.body.total).toBe(7500);
  });

  it('refuses what a new hold would refuse, and a seat the hold does not have, changing nothing', async () => {
    const h = await hold({
      seats: [
        { seatId: 'P-A-3' },
        { seatId: 'P-A-4', ticketType: 'child' },
        { seatId: 'P-A-5', ticketType: 'child' },
      ],
    });
    const before = (await read(h.body.holdId)).body;
    const unknown = await patch(h.body.holdId, 'P-A-3', 'senior');
    expect([unknown.status, unknown.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    const hidden = await patch(h.body.holdId, 'P-A-3', 'comp');
    expect([hidden.status, hidden.body.code]).toEqual([422, 'TICKET_TYPE_LOCKED']);
    const third = await patch(h.body.holdId, 'P-A-3', 'child');
    expect([third.status, third.body.code]).toEqual([422, 'TICKET_TYPE_LIMIT_EXCEEDED']);
    const notHeld = await patch(h.body.holdId, 'P-A-6', 'child');
    expect([notHeld.status, notHeld.body.code]).toEqual([404, 'SEAT_NOT_FOUND']);
    const badBody = await patch(h.body.holdId, 'P-A-3', 7);
    expect([badBody.status, badBody.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await read(h.body.holdId)).body).toEqual({ ...before, expiresInSeconds: expect.any(Number) });
  });

  it("is the holder's alone, and only while the hold is ACTIVE", async () => {
    const h = await hold({ seatIds: ['S-C-5'] });
    expect((await patch(h.body.holdId, 'S-C-5', 'child', bob)).status).toBe(404);
    expect((await api.call('DELETE', `/v1/holds/${h.body.holdId}`, { token: alice })).status).toBe(204);
    const r = await patch(h.body.holdId, 'S-C-5', 'child');
    expect([r.status, r.body.code]).toEqual([409, 'HOLD_NOT_ACTIVE']);
  });

  it('many changes of one hold at once: each is made once, none lost (the last answer is what GET says)', async () => {
    const seats = ['S-C-6', 'S-C-7', 'S-C-8', 'S-C-9'];
    const h = await hold({ seatIds: seats });
    const answers = await Promise.all(seats.map((s) => patch(h.body.holdId, s, 'child')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const now = (await read(h.body.holdId)).body;
    expect(now.lines.map((l: { ticketType: string }) => l.ticketType)).toEqual([
      'child',
      'child',
      'child',
      'child',
    ]);
    expect(now.total).toBe(4 * 2500);
  });
});

it('a show without a price list holds as before, unpriced; naming a type there is refused', async () => {
  const plain = await createEvent(api, 1, 5);
  const r = await hold({ seatIds: ['S-A-1'] }, alice, plain);
  expect(r.status).toBe(201);
  expect(r.body).not.toHaveProperty('lines');
  expect(r.body).not.toHaveProperty('total');
  const typed = await hold({ seats: [{ seatId: 'S-A-2', ticketType: 'adult' }] }, alice, plain);
  expect([typed.status, typed.body.code]).toEqual([404, 'PRICE_LIST_NOT_FOUND']);
  const change = await patch(r.body.holdId, 'S-A-1', 'adult');
  expect([change.status, change.body.code]).toEqual([409, 'HOLD_NOT_PRICED']);
  expect(PRICES.currency).toBe('EUR');
});
