/**
 * Offers exactly once across rebalances in the middle of a burst of freed seats, on a real broker with
 * apps/waitlist processes in one consumer group and the real seat API, PostgreSQL and Redis (in the cluster
 * run, a Redis Cluster: offer holds made, and replayed by their Idempotency-Key, on it). The first consumer
 * is caught mid-burst (its hold for one show held up on the way to the seat API) while a second one joins:
 * the group rebalances around that show's offer in flight, then the first consumer leaves and the second
 * takes every partition. Every freed seat is offered once, every entry gets at most one offer and one hold,
 * and no fitting entry is left waiting.
 */
import { eventually } from '../support/eventually';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { Show, WaitlistHarness } from './harness';

jest.setTimeout(180_000);

const SHOWS = 8;

let h: WaitlistHarness;
let seatApi: TcpProxy;

beforeAll(async () => {
  h = await WaitlistHarness.start();
  const u = new URL(h.api.base);
  seatApi = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
});
afterAll(async () => {
  seatApi?.thaw();
  await seatApi?.close();
  await h?.close();
});

it('a consumer joins while another is mid-burst, then the first leaves: every freed seat offered once, to one entry each', async () => {
  const first = await h.consumer(undefined, seatApi.urlFor(h.api.base));
  const shows: Show[] = [];
  for (let i = 0; i < SHOWS; i++) {
    const show = await h.soldOut(2);
    for (const user of ['a', 'b', 'c']) {
      await h.join(show.eventId, `wl-r${i}-${user}`, 1); // two seats, three parties of one: c waits
    }
    shows.push(show);
  }

  // the first consumer is stopped mid-burst, asking for a hold of the fourth show
  const midBurst = seatApi.freezeOn(`/v1/events/${shows[3].eventId}/holds`);
  const sources: string[] = [];
  for (const show of shows) {
    sources.push(await h.release('buyer', show));
  }
  await midBurst;
  const second = h.consumer(); // its join starts a rebalance the first consumer is in the middle of
  await eventually(
    async () => (await h.groupState()) === 'PreparingRebalance',
    60_000,
    'the group rebalancing',
  );
  seatApi.thaw();
  await second;
  await first.stop(); // leaves: another rebalance, the second consumer takes every partition
  await eventually(() => h.drained(), 90_000, 'the burst consumed');

  for (const [i, show] of shows.entries()) {
    const rows = await h.entries(show.eventId);
    expect(rows.map((e) => [e.user_id, e.status])).toEqual([
      [`wl-r${i}-a`, 'OFFERED'],
      [`wl-r${i}-b`, 'OFFERED'],
      [`wl-r${i}-c`, 'WAITING'],
    ]);
    const offers = await h.offersOf(sources[i]);
    expect(offers.flatMap((o) => o.seat_ids).sort()).toEqual(show.seatIds); // each seat once
    for (const row of rows.slice(0, 2)) {
      expect(await h.liveHolds(show.eventId, row.user_id)).toEqual([
        expect.objectContaining({ holdId: row.hold_id }),
      ]);
    }
    expect(await h.liveHolds(show.eventId, `wl-r${i}-c`)).toEqual([]);
  }
});
