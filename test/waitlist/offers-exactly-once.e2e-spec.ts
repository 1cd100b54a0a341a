/**
 * Offers exactly once in effect, on a real broker with two apps/waitlist processes in one consumer group,
 * the real seat API, PostgreSQL and Redis. The freed changes are published as the seat API's relay does
 * (the contract's ids: a copy of a change has the change's id). In every case: no seat is offered to two
 * entries, no entry gets two offers, and no freed seat stays unoffered while a fitting entry waits.
 *
 * - a change delivered twice makes its offers once;
 * - a consumer killed (SIGKILL) after its offers committed but before its offset commit: the other
 *   consumer reads the change again and makes no new offer (it announces the same one again, same id);
 * - a consumer killed after the offer's hold was made but before its transaction committed: the other
 *   consumer gets that same hold back from the seat API (the Idempotency-Key) and makes it the offer;
 *   the same with places of a general-admission area, whose holds are counts rather than named seats.
 *
 * Rebalances in the middle of a burst: offers-rebalance.e2e-spec.ts.
 */
import { holdReleasedEvent } from '@app/contracts';
import { eventually } from '../support/eventually';
import { startTcpProxy, TcpProxy } from '../support/tcp-proxy';
import { WaitlistHarness } from './harness';

jest.setTimeout(240_000);

let h: WaitlistHarness;
const proxies: TcpProxy[] = [];

beforeAll(async () => {
  h = await WaitlistHarness.start();
});
afterEach(async () => {
  await h.stopConsumers();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});
afterAll(() => h?.close());

/** A PostgreSQL proxy the test can freeze on a statement of the consumer behind it. */
async function pgProxy(): Promise<TcpProxy> {
  const pg = new URL(process.env.DATABASE_URL!);
  const proxy = await startTcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
  proxies.push(proxy);
  return proxy;
}

it('a change delivered twice makes its offers once: each freed seat to one entry, each entry one offer', async () => {
  await h.consumer();
  await h.consumer();
  const show = await h.soldOut(4);
  const [first, second, third] = [
    await h.join(show.eventId, 'wl-a1', 2),
    await h.join(show.eventId, 'wl-a2', 2),
    await h.join(show.eventId, 'wl-a3', 1),
  ];
  const source = await h.release('buyer', show, 2);

  await eventually(
    async () => (await h.offersOf(source)).length === 2 && (await h.drained()),
    60_000,
    'both copies consumed and the seats offered',
  );
  const rows = await h.entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status])).toEqual([
    [first, 'OFFERED'],
    [second, 'OFFERED'],
    [third, 'WAITING'], // nothing left for them: every freed seat is offered to the first two
  ]);
  const offers = await h.offersOf(source);
  expect(offers.flatMap((o) => o.seat_ids).sort()).toEqual(show.seatIds); // each seat once
  for (const user of ['wl-a1', 'wl-a2']) {
    const holds = await h.liveHolds(show.eventId, user);
    expect(holds).toHaveLength(1);
    expect(rows.find((e) => e.user_id === user)!.hold_id).toBe(holds[0].holdId);
  }
  expect(await h.liveHolds(show.eventId, 'wl-a3')).toEqual([]);
  await eventually(() => h.announced(show.eventId).size === 2, 30_000, 'both offers announced');
});

it('a consumer killed after its offer committed, before its offset commit: the other makes no second offer', async () => {
  const proxy = await pgProxy();
  const doomed = await h.consumer(proxy.urlFor(process.env.DATABASE_URL!));
  const show = await h.soldOut(2);
  const first = await h.join(show.eventId, 'wl-b1', 2);
  await h.join(show.eventId, 'wl-b2', 2);

  // the offer is committed and announced; the statement after that (recording the announcement, then the
  // offset commit) never gets out: the process is stuck exactly there when it is killed
  const stuck = proxy.freezeOn('SET published_at');
  const source = await h.release('buyer', show);
  await stuck;
  expect((await h.entries(show.eventId)).map((e) => e.status)).toEqual(['OFFERED', 'WAITING']);
  const [offer] = await h.offersOf(source);
  await doomed.kill();
  expect(await h.drained()).toBe(false); // the change is still to be read by the group

  await h.consumer(); // the survivor: gets the partition once the killed member's session ends
  await eventually(() => h.drained(), 90_000, 'the change read again and its offset committed');

  const rows = await h.entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status, e.hold_id])).toEqual([
    [first, 'OFFERED', offer.hold_id],
    [rows[1].id, 'WAITING', null],
  ]);
  expect(await h.offersOf(source)).toEqual([
    expect.objectContaining({ entry_id: first, hold_id: offer.hold_id }),
  ]);
  expect((await h.offersOf(source))[0].published_at).not.toBeNull();
  expect(await h.liveHolds(show.eventId, 'wl-b1')).toEqual([
    expect.objectContaining({ holdId: offer.hold_id }),
  ]);
  expect(await h.liveHolds(show.eventId, 'wl-b2')).toEqual([]);
  await eventually(() => h.announced(show.eventId).size === 1, 30_000, 'the offer announced');
});

it('a consumer killed after making the hold, before its transaction committed: the other makes that hold the offer', async () => {
  const proxy = await pgProxy();
  const doomed = await h.consumer(proxy.urlFor(process.env.DATABASE_URL!));
  const show = await h.soldOut(3);
  const first = await h.join(show.eventId, 'wl-c1', 3);
  await h.join(show.eventId, 'wl-c2', 3);

  // the seat API made the hold for wl-c1; the transaction's COMMIT never reaches PostgreSQL
  const stuck = proxy.freezeOn('COMMIT');
  const source = await h.release('buyer', show);
  await stuck;
  const orphan = await h.liveHolds(show.eventId, 'wl-c1');
  expect(orphan).toHaveLength(1);
  await doomed.kill(); // PostgreSQL rolls the transaction back: no offer row, the entry still WAITING
  await eventually(
    async () =>
      (await h.entries(show.eventId))[0].status === 'WAITING' && (await h.offersOf(source)).length === 0,
    30_000,
    'the killed transaction rolled back',
  );

  await h.consumer();
  await eventually(() => h.drained(), 90_000, 'the change read again and its offset committed');

  const rows = await h.entries(show.eventId);
  expect(rows.map((e) => [e.id, e.status, e.hold_id])).toEqual([
    [first, 'OFFERED', orphan[0].holdId], // the same hold, not a second one
    [rows[1].id, 'WAITING', null],
  ]);
  expect(await h.liveHolds(show.eventId, 'wl-c1')).toEqual([
    expect.objectContaining({ holdId: orphan[0].holdId }),
  ]);
  expect(await h.liveHolds(show.eventId, 'wl-c2')).toEqual([]);
  expect(await h.offersOf(source)).toHaveLength(1);
});

it('places of an area: a consumer killed after making the holds, before its transaction committed, leaves no second hold', async () => {
  const proxy = await pgProxy();
  const doomed = await h.consumer(proxy.urlFor(process.env.DATABASE_URL!));
  const admin = await h.api.token('admin-1', ['admin']);
  const created = await h.api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Standing',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [{ name: 'FLOOR', category: 'standing', capacity: 3 }],
    },
  });
  expect(created.status).toBe(201);
  const eventId: string = created.body.eventId;
  const places = [{ area: 'FLOOR', quantity: 3 }];
  const sold = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { places, ttlSeconds: 600 },
  });
  expect(sold.status).toBe(201);
  const join = async (user: string, quantity: number) => {
    const r = await h.api.call('POST', `/v1/events/${eventId}/waitlist`, {
      token: await h.api.token(user),
      body: { quantity, area: 'FLOOR' },
    });
    expect(r.status).toBe(201);
    return r.body.entryId as string;
  };
  const [first, second, third] = [await join('wl-p1', 2), await join('wl-p2', 1), await join('wl-p3', 1)];

  // both holds made (two places for wl-p1, one for wl-p2); the COMMIT never reaches PostgreSQL
  const stuck = proxy.freezeOn('COMMIT');
  expect(
    (await h.api.call('DELETE', `/v1/holds/${sold.body.holdId}`, { token: await h.api.token('buyer') }))
      .status,
  ).toBe(204);
  const source = await h.publish(
    holdReleasedEvent(
      { eventId, holdId: sold.body.holdId, userId: 'buyer', seatIds: [], places, reason: 'RELEASED' },
      new Date(),
    ),
  );
  await stuck;
  const [made1] = await h.liveHolds(eventId, 'wl-p1');
  const [made2] = await h.liveHolds(eventId, 'wl-p2');
  expect([made1?.holdId, made2?.holdId]).toEqual([expect.any(String), expect.any(String)]);
  await doomed.kill();

  await h.consumer();
  await eventually(() => h.drained(), 90_000, 'the change read again and its offset committed');
  const rows = await h.entries(eventId);
  expect(rows.map((e) => [e.id, e.status, e.hold_id])).toEqual([
    [first, 'OFFERED', made1.holdId], // the same holds, not second ones
    [second, 'OFFERED', made2.holdId],
    [third, 'WAITING', null], // the three places are taken by them
  ]);
  expect((await h.liveHolds(eventId, 'wl-p1')).map((x) => x.holdId)).toEqual([made1.holdId]);
  expect((await h.liveHolds(eventId, 'wl-p2')).map((x) => x.holdId)).toEqual([made2.holdId]);
  expect(await h.liveHolds(eventId, 'wl-p3')).toEqual([]);
  expect((await h.offersOf(source)).map((o) => o.entry_id).sort()).toEqual([first, second].sort());
  const event = await h.api.call('GET', `/v1/events/${eventId}`, { token: admin });
  expect(event.body.areas[0]).toMatchObject({ free: 0, held: 3 });
});
