/**
 * A customer who leaves the waiting list while an offer is being made for them ends with no hold, and the
 * seats go to the next entry at once, with apps/waitlist in child processes and the real seat API,
 * PostgreSQL, Redis and Kafka (the seat API's relay publishes seat.status):
 *
 * - they leave while the seat API makes their offer hold (the app's request held up on its way): the app
 *   does not make it their offer, it releases the hold, and the next entry is offered the seats;
 * - the app is killed after making the holds of a change's offers and before storing them, and the first
 *   of those customers leaves: the next instance releases the leaver's hold, makes the hold already made
 *   for the second customer their offer (not a second one), and offers the leaver's seat to the next entry.
 */
import { eventually } from '../support/eventually';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { WaitlistHarness } from './harness';

jest.setTimeout(240_000);

let h: WaitlistHarness;
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  h = await WaitlistHarness.start({ SWEEPER_ENABLED: 'true' });
});
afterEach(async () => {
  await h.stopConsumers();
  for (const p of proxies.splice(0)) {
    p.thaw();
    await p.close();
  }
});
afterAll(() => h?.close());

async function proxyTo(url: string): Promise<TcpProxy> {
  const u = new URL(url);
  const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  proxies.push(proxy);
  return proxy;
}

const leave = async (user: string, entryId: string) =>
  h.api.call('DELETE', `/v1/waitlist/${entryId}`, { token: await h.api.token(user) });

const status = async (eventId: string) => (await h.entries(eventId)).map((e) => [e.user_id, e.status]);

it('leaving while the offer hold is being made: the leaver keeps no hold, the next entry is offered the seats', async () => {
  const seatApi = await proxyTo(h.api.base);
  await h.consumer(undefined, seatApi.urlFor(h.api.base));
  const show = await h.soldOut(2);
  const leaver = await h.join(show.eventId, 'wl-x1', 2);
  await h.join(show.eventId, 'wl-x2', 2);

  // the app's hold request for wl-x1 is held up on its way to the seat API
  const asking = seatApi.freezeOn(`/v1/events/${show.eventId}/holds`);
  await h.release('buyer', show);
  await asking;
  const left = await leave('wl-x1', leaver);
  expect(left.status).toBe(204);
  seatApi.thaw(); // the seat API makes the hold now

  await eventually(
    async () => (await status(show.eventId))[1][1] === 'OFFERED' && (await h.drained()),
    60_000,
    'the next entry offered',
  );
  expect(await status(show.eventId)).toEqual([
    ['wl-x1', 'LEFT'],
    ['wl-x2', 'OFFERED'],
  ]);
  expect(await h.liveHolds(show.eventId, 'wl-x1')).toEqual([]);
  const next = (await h.entries(show.eventId))[1];
  expect(await h.liveHolds(show.eventId, 'wl-x2')).toEqual([
    expect.objectContaining({ holdId: next.hold_id, seatIds: show.seatIds }),
  ]);
});

it('the app killed mid-offer and a customer leaving meanwhile: the next instance releases their hold and offers their seat on at once', async () => {
  const pg = await proxyTo(process.env.DATABASE_URL!);
  const doomed = await h.consumer(pg.urlFor(process.env.DATABASE_URL!));
  const show = await h.soldOut(2);
  const leaver = await h.join(show.eventId, 'wl-y1', 1);
  const second = await h.join(show.eventId, 'wl-y2', 1);
  const third = await h.join(show.eventId, 'wl-y3', 1);

  // both holds made (wl-y1 seat 1, wl-y2 seat 2); the statement storing the offers never reaches PostgreSQL
  const storing = pg.freezeOn('INSERT INTO waitlist_offers');
  const source = await h.release('buyer', show);
  await storing;
  const [made1] = await h.liveHolds(show.eventId, 'wl-y1');
  const [made2] = await h.liveHolds(show.eventId, 'wl-y2');
  expect([made1?.seatIds, made2?.seatIds]).toEqual([[show.seatIds[0]], [show.seatIds[1]]]);
  await doomed.kill();
  expect((await leave('wl-y1', leaver)).status).toBe(204);

  await h.consumer(); // the change is read again once the killed member's session ends
  await eventually(
    async () => (await status(show.eventId))[2][1] === 'OFFERED' && (await h.drained()),
    90_000,
    "the leaver's seat offered to the third entry",
  );
  const rows = await h.entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status])).toEqual([
    [leaver, 'LEFT'],
    [second, 'OFFERED'],
    [third, 'OFFERED'],
  ]);
  expect(await h.liveHolds(show.eventId, 'wl-y1')).toEqual([]);
  // the hold made before the kill is wl-y2's offer, not a second one
  expect(await h.liveHolds(show.eventId, 'wl-y2')).toEqual([
    expect.objectContaining({ holdId: made2.holdId }),
  ]);
  expect(rows[1].hold_id).toBe(made2.holdId);
  expect(await h.liveHolds(show.eventId, 'wl-y3')).toEqual([
    expect.objectContaining({ holdId: rows[2].hold_id, seatIds: [show.seatIds[0]] }),
  ]);
  const offers = await h.offersOf(source);
  expect(offers.map((o) => o.entry_id).sort()).toEqual([second, third].sort());
});
