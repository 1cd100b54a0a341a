/**
 * Promo-code uses counted exactly, on two instances of the API sharing PostgreSQL and Redis: a code with
 * maxUses 50 on 500 holds whose confirms race across both instances is carried by exactly 50 bookings,
 * the other 450 confirms refused 409 PROMO_CODE_UNAVAILABLE with nothing booked and their holds ACTIVE;
 * retries of the winners (the same orderId) replay and count nothing more; and a confirm whose booking
 * transaction cannot finish (the code's row held by another transaction past its budget) books nothing and
 * counts nothing, its retry then counts once.
 */
import { startTwoInstances, TwoInstances } from '@test/support/catalogue-stage';
import { Db, openDb } from '@test/support/db';
import { createPricedShow, createPromo, setPrices } from '@test/support/pricing-stage';
import { Api } from '@test/support/seat-api';
import { Client } from 'pg';

const HOLDS = 500;
const MAX_USES = 50;

let instances: TwoInstances;
let a: Api;
let b: Api;
let db: Db;
let eventId: string;

beforeAll(async () => {
  process.env.RATE_LIMIT_ENABLED = 'false';
  // the seat lock waits: a confirm is decided, never answered BUSY for contention on its own hold
  process.env.SEAT_LOCK_WAIT_MS = '5000';
  db = await openDb();
  instances = await startTwoInstances();
  ({ a, b } = instances);
  eventId = await createPricedShow(a, 250, 2);
  await setPrices(a, eventId);
  await createPromo(a, eventId, { code: 'FIFTY', kind: 'percent', value: 20, maxUses: MAX_USES });
});
afterAll(async () => {
  await instances?.close();
  await db?.close();
});

/** Runs `work` over `items`, `width` at a time. */
async function inBatches<T, R>(
  items: T[],
  width: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) {
    out.push(...(await Promise.all(items.slice(i, i + width).map((item, j) => work(item, i + j)))));
  }
  return out;
}

it(`maxUses ${MAX_USES} and ${HOLDS} confirms racing on two instances: exactly ${MAX_USES} bookings carry the code`, async () => {
  const seats = Array.from({ length: HOLDS }, (_, i) => `S-${i < 250 ? 'A' : 'B'}-${(i % 250) + 1}`);
  const holds = await inBatches(seats, 50, async (seat, i) => {
    const on = i % 2 ? b : a;
    const token = await on.token(`fan-${i}`);
    const made = await on.call('POST', `/v1/events/${eventId}/holds`, {
      token,
      body: { seatIds: [seat], promoCode: 'FIFTY' },
    });
    expect(made.status).toBe(201);
    return { token, holdId: made.body.holdId as string, on: i % 2 ? a : b };
  });
  const confirm = (h: (typeof holds)[number], i: number, on: Api) =>
    on.call('POST', `/v1/holds/${h.holdId}/confirm`, { token: h.token, body: { orderId: `race-${i}` } });
  const confirms = await Promise.all(holds.map((h, i) => confirm(h, i, h.on)));
  // a confirm that could not finish in its time under this burst answers 503 with nothing booked: the
  // client retries it with the same orderId (on the other instance here) until it is decided
  let retried = 0;
  for (let round = 0; round < 20 && confirms.some((r) => r.status === 503); round++) {
    const again = confirms.map((r, i) => (r.status === 503 ? i : -1)).filter((i) => i >= 0);
    retried += again.length;
    const answers = await Promise.all(again.map((i) => confirm(holds[i], i, holds[i].on === a ? b : a)));
    again.forEach((i, k) => (confirms[i] = answers[k]));
  }
  console.log(`promo race: ${retried} confirms answered 503 and retried`);
  const byStatus = new Map<string, number>();
  for (const r of confirms) {
    const key = `${r.status} ${r.body.code ?? ''}`.trim();
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  expect(Object.fromEntries(byStatus)).toEqual({
    201: MAX_USES,
    '409 PROMO_CODE_UNAVAILABLE': HOLDS - MAX_USES,
  });
  expect(
    await db.count('bookings', "event_id = $1 AND status = 'CONFIRMED' AND promo_code = 'FIFTY'", [eventId]),
  ).toBe(MAX_USES);
  expect(await db.count('bookings', "event_id = $1 AND status = 'CONFIRMED'", [eventId])).toBe(MAX_USES);
  const [code] = await db.rows<{ uses: number }>("SELECT uses FROM promo_codes WHERE code = 'FIFTY'");
  expect(code.uses).toBe(MAX_USES);

  // the losers' holds are ACTIVE again, still carrying the code
  const loser = holds[confirms.findIndex((r) => r.status === 409)];
  const read = await loser.on.call('GET', `/v1/holds/${loser.holdId}`, { token: loser.token });
  expect(read.body).toMatchObject({ status: 'ACTIVE', promoCode: 'FIFTY' });

  // retries of the winners, on the other instance: replays, nothing counted again
  const winners = holds.map((h, i) => ({ ...h, i })).filter((_, i) => confirms[i].status === 201);
  const replays = await Promise.all(
    winners.map((h) =>
      (h.on === a ? b : a).call('POST', `/v1/holds/${h.holdId}/confirm`, {
        token: h.token,
        body: { orderId: `race-${h.i}` },
      }),
    ),
  );
  expect(replays.every((r) => r.status === 200)).toBe(true);
  expect((await db.rows<{ uses: number }>("SELECT uses FROM promo_codes WHERE code = 'FIFTY'"))[0].uses).toBe(
    MAX_USES,
  );
});

it('a booking transaction that cannot finish counts no use; its retry counts one', async () => {
  await createPromo(a, eventId, { code: 'STUCK', kind: 'amount', value: 100, maxUses: 5 });
  const token = await a.token('stuck-fan');
  const made = await a.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: { seatIds: ['P-A-1'], promoCode: 'STUCK' },
  });
  expect(made.status).toBe(201);
  // another transaction holds the code's row: the confirm's count waits past its budget and gives up
  const blocker = new Client({ connectionString: process.env.DATABASE_URL });
  await blocker.connect();
  await blocker.query(`SET search_path TO ${process.env.DATABASE_SCHEMA}`);
  await blocker.query('BEGIN');
  await blocker.query("SELECT 1 FROM promo_codes WHERE code = 'STUCK' FOR UPDATE");
  let first;
  try {
    first = await a.call('POST', `/v1/holds/${made.body.holdId}/confirm`, {
      token,
      body: { orderId: 'o-stuck' },
    });
  } finally {
    await blocker.query('ROLLBACK');
    await blocker.end();
  }
  expect([first.status, first.body.code]).toEqual([503, 'BOOKING_UNAVAILABLE']);
  expect(await db.count('bookings', "hold_id = $1 AND status = 'CONFIRMED'", [made.body.holdId])).toBe(0);
  expect((await db.rows<{ uses: number }>("SELECT uses FROM promo_codes WHERE code = 'STUCK'"))[0].uses).toBe(
    0,
  );
  const retry = await b.call('POST', `/v1/holds/${made.body.holdId}/confirm`, {
    token,
    body: { orderId: 'o-stuck' },
  });
  expect(retry.status).toBe(201);
  expect(retry.body).toMatchObject({ promoCode: 'STUCK', total: 9000 - 100 });
  expect((await db.rows<{ uses: number }>("SELECT uses FROM promo_codes WHERE code = 'STUCK'"))[0].uses).toBe(
    1,
  );
});
