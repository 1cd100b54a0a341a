/**
 * A price change during live holds, on two instances of the API sharing PostgreSQL and Redis: a hold keeps
 * the prices of the version it was made under for its whole life (read on either instance, changed line by
 * line, confirmed: the booking has them), while every hold sent after the change answered, on either
 * instance, is priced under the new version at once, even on the instance that kept the old one.
 */
import { startTwoInstances, TwoInstances } from '@test/support/catalogue-stage';
import { Db, openDb } from '@test/support/db';
import { createPricedShow, PRICES, setPrices } from '@test/support/pricing-stage';
import { Api } from '@test/support/seat-api';

let instances: TwoInstances;
let a: Api; // holds are made here: it keeps the policy (and so the price version) it last read
let b: Api; // the admin changes prices here
let db: Db;
let eventId: string;
let alice: string;

beforeAll(async () => {
  process.env.RATE_LIMIT_ENABLED = 'false';
  process.env.HOLD_MAX_SEATS_PER_USER = '500';
  db = await openDb();
  instances = await startTwoInstances();
  ({ a, b, alice } = instances);
  eventId = await createPricedShow(a, 150, 4);
  await setPrices(b, eventId);
});
afterAll(async () => {
  await instances?.close();
  await db?.close();
});

const dearer = (add: number) => {
  const list = structuredClone(PRICES);
  for (const c of list.categories) {
    for (const t of c.ticketTypes) {
      t.price += add;
    }
  }
  return list;
};
const hold = (on: Api, seatIds: string[]) =>
  on.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds } });

it('old holds keep their prices; new holds on every instance take the new version at once', async () => {
  const old = await hold(a, ['S-A-1', 'P-A-1']);
  expect(old.body).toMatchObject({ priceListVersion: 1, total: 14000 });
  expect(await setPrices(b, eventId, dearer(1000))).toBe(2);

  // a still keeps version 1 of the policy: its next hold is refused by the hold's own step and made again
  const fresh = await hold(a, ['S-A-3', 'P-A-3']);
  expect(fresh.body).toMatchObject({ priceListVersion: 2, total: 16000 });
  const onB = await hold(b, ['S-A-5']);
  expect(onB.body).toMatchObject({ priceListVersion: 2, total: 6000 });

  for (const on of [a, b]) {
    const read = await on.call('GET', `/v1/holds/${old.body.holdId}`, { token: alice });
    expect(read.body).toMatchObject({ priceListVersion: 1, total: 14000 });
  }
  // a line changed on the old hold is priced under its version, not the current one
  const child = await b.call('PATCH', `/v1/holds/${old.body.holdId}/lines/S-A-1`, {
    token: alice,
    body: { ticketType: 'child' },
  });
  expect(child.body).toMatchObject({ priceListVersion: 1, total: 9000 + 2500 });
  const booked = await b.call('POST', `/v1/holds/${old.body.holdId}/confirm`, {
    token: alice,
    body: { orderId: 'o-old' },
  });
  expect(booked.body).toMatchObject({ priceListVersion: 1, total: 11500 });
  const [row] = await db.rows<{ price_list_version: number; total: string }>(
    'SELECT price_list_version, total FROM bookings WHERE hold_id = $1',
    [old.body.holdId],
  );
  expect(row).toEqual({ price_list_version: 1, total: '11500' });
});

it('holds racing a price change: each is priced under one version, and every hold sent after it answered under the new one', async () => {
  let seat = 10;
  const sent: { afterChange: boolean; version: Promise<number> }[] = [];
  let changed = false;
  const stream = (on: Api) =>
    (async () => {
      while (sent.length < 120) {
        const seats = [`S-B-${++seat}`];
        const afterChange = changed;
        const r = hold(on, seats).then((res) => {
          expect(res.status).toBe(201);
          return res.body.priceListVersion as number;
        });
        sent.push({ afterChange, version: r });
        await r;
      }
    })();
  const streams = [stream(a), stream(b), stream(a)];
  while (sent.length < 30) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const version = await setPrices(b, eventId, dearer(2000));
  changed = true;
  await Promise.all(streams);
  const versions = await Promise.all(sent.map(async (s) => ({ after: s.afterChange, v: await s.version })));
  expect(versions.filter((s) => s.after).every((s) => s.v === version)).toBe(true);
  expect(versions.filter((s) => s.after).length).toBeGreaterThan(0);
  expect(new Set(versions.map((s) => s.v))).toEqual(new Set([version - 1, version]));
});
