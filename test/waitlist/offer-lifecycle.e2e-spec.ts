/**
 * An offer's life, with apps/waitlist in a child process, the real seat API, PostgreSQL, Redis and Kafka:
 * the entry reads OFFERED with its hold and when it lapses, and the hold is the user's own (GET, confirm);
 * an offer released unbooked LAPSES and its seats go to the next entry in line; one left on purpose
 * (DELETE on the entry) is declined, and goes on the same way; a booked one makes the entry ACCEPTED.
 * First come first served: a later, smaller party does not jump the queue when the first one fits. And
 * end to end: a hold released over HTTP reaches the waiting list through the seat API's own seat.status.
 */
import { holdReleasedEvent } from '@app/contracts';
import { eventually } from '../support/eventually';
import { WaitlistHarness } from './harness';

jest.setTimeout(180_000);

let h: WaitlistHarness;

beforeAll(async () => {
  // the seat API's relay runs too: the last test relies on it alone; in the others its copy of a change
  // and the test's own have one id, so the change is offered once
  h = await WaitlistHarness.start({ SWEEPER_ENABLED: 'true' });
  await h.consumer();
});
afterAll(() => h?.close());

const status = async (eventId: string) => (await h.entries(eventId)).map((e) => [e.user_id, e.status]);

it('offers the freed seats to the first fitting entry; a lapsed offer goes to the next; a booked one is ACCEPTED', async () => {
  const show = await h.soldOut(2);
  const first = await h.join(show.eventId, 'wl-l1', 2);
  await h.join(show.eventId, 'wl-l2', 1);
  await h.join(show.eventId, 'wl-l3', 2);

  await h.release('buyer', show);
  await eventually(async () => (await status(show.eventId))[0][1] === 'OFFERED', 60_000, 'first offer');
  expect(await status(show.eventId)).toEqual([
    ['wl-l1', 'OFFERED'], // both freed seats, together, to the party of two first in line
    ['wl-l2', 'WAITING'],
    ['wl-l3', 'WAITING'],
  ]);
  const entry = await h.api.call('GET', `/v1/waitlist/${first}`, { token: await h.api.token('wl-l1') });
  expect(entry.body).toEqual(expect.objectContaining({ status: 'OFFERED', holdId: expect.any(String) }));
  const offerHold = await h.api.call('GET', `/v1/holds/${entry.body.holdId}`, {
    token: await h.api.token('wl-l1'),
  });
  expect([offerHold.body.userId, offerHold.body.seatIds, offerHold.body.expiresAt]).toEqual([
    'wl-l1',
    show.seatIds,
    entry.body.offerExpiresAt,
  ]);

  // wl-l1 lets the offer go: it lapsed, and the seats go on: one to wl-l2, the other to nobody who fits
  await h.release('wl-l1', { eventId: show.eventId, holdId: entry.body.holdId, seatIds: show.seatIds });
  await eventually(async () => (await status(show.eventId))[1][1] === 'OFFERED', 60_000, 'second offer');
  await eventually(() => h.drained(), 60_000, 'the release read');
  expect(await status(show.eventId)).toEqual([
    ['wl-l1', 'LAPSED'],
    ['wl-l2', 'OFFERED'],
    ['wl-l3', 'WAITING'], // one seat left over: not a party of two's
  ]);
  const second = (await h.entries(show.eventId))[1];
  const held = await h.liveHolds(show.eventId, 'wl-l2');
  expect(held).toEqual([expect.objectContaining({ holdId: second.hold_id, seatIds: [show.seatIds[0]] })]);

  // wl-l2 books it
  await h.confirm('wl-l2', { eventId: show.eventId, holdId: second.hold_id!, seatIds: held[0].seatIds });
  await eventually(async () => (await status(show.eventId))[1][1] === 'ACCEPTED', 60_000, 'accepted');
  const read = await h.api.call('GET', `/v1/waitlist/${second.id}`, { token: await h.api.token('wl-l2') });
  expect([read.body.status, read.body.holdId, read.body.offerExpiresAt]).toEqual([
    'ACCEPTED',
    second.hold_id,
    undefined,
  ]);
});

it('an offer declined by leaving the list goes to the next entry', async () => {
  const show = await h.soldOut(3);
  const first = await h.join(show.eventId, 'wl-d1', 3);
  await h.join(show.eventId, 'wl-d2', 3);
  await h.release('buyer', show);
  await eventually(async () => (await status(show.eventId))[0][1] === 'OFFERED', 60_000, 'first offer');
  const offered = (await h.entries(show.eventId))[0];

  const left = await h.api.call('DELETE', `/v1/waitlist/${first}`, { token: await h.api.token('wl-d1') });
  expect(left.status).toBe(204);
  // the DELETE released the offer hold in the seat API; its HoldReleased, as the relay publishes it
  const hold = await h.api.call('GET', `/v1/holds/${offered.hold_id}`, { token: await h.api.token('wl-d1') });
  expect(hold.body.status).toBe('RELEASED');
  await h.publish(
    holdReleasedEvent(
      {
        eventId: show.eventId,
        holdId: offered.hold_id!,
        userId: 'wl-d1',
        seatIds: show.seatIds,
        reason: 'RELEASED',
      },
      new Date(),
    ),
  );
  await eventually(async () => (await status(show.eventId))[1][1] === 'OFFERED', 60_000, 'next offer');
  expect(await status(show.eventId)).toEqual([
    ['wl-d1', 'LEFT'],
    ['wl-d2', 'OFFERED'],
  ]);
  expect(await h.liveHolds(show.eventId, 'wl-d1')).toEqual([]);
  expect((await h.liveHolds(show.eventId, 'wl-d2'))[0].seatIds).toEqual(show.seatIds);
});

it("gives the offer the show's longest hold when the show caps holds below WAITLIST_OFFER_TTL_SECONDS", async () => {
  const created = await h.api.call('POST', '/v1/events', {
    token: await h.api.token('admin-1', ['admin']),
    body: {
      name: 'Short holds',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 2 }] }],
      settings: { defaultHoldTtlSeconds: 60, maxHoldTtlSeconds: 120 }, // the harness offers for 600 s
    },
  });
  expect(created.status).toBe(201);
  const eventId: string = created.body.eventId;
  const seatIds = ['S-A-1', 'S-A-2'];
  const held = await h.api.call('POST', `/v1/events/${eventId}/holds`, {
    token: await h.api.token('buyer'),
    body: { seatIds, ttlSeconds: 60 },
  });
  expect(held.status).toBe(201);
  const entryId = await h.join(eventId, 'wl-t1', 2);
  await h.release('buyer', { eventId, holdId: held.body.holdId, seatIds });

  await eventually(async () => (await status(eventId))[0][1] === 'OFFERED', 60_000, 'offer');
  const entry = await h.api.call('GET', `/v1/waitlist/${entryId}`, { token: await h.api.token('wl-t1') });
  const hold = await h.api.call('GET', `/v1/holds/${entry.body.holdId}`, {
    token: await h.api.token('wl-t1'),
  });
  expect(hold.body.seatIds).toEqual(seatIds);
  expect(Date.parse(hold.body.expiresAt) - Date.parse(hold.body.createdAt)).toBe(120_000);
});

it("end to end through the seat API's own seat.status: a hold released over HTTP is offered, nothing published by hand", async () => {
  const show = await h.soldOut(2);
  const entryId = await h.join(show.eventId, 'wl-e1', 2);
  const r = await h.api.call('DELETE', `/v1/holds/${show.holdId}`, { token: await h.api.token('buyer') });
  expect(r.status).toBe(204);

  await eventually(async () => (await status(show.eventId))[0][1] === 'OFFERED', 60_000, 'offer');
  const entry = await h.api.call('GET', `/v1/waitlist/${entryId}`, { token: await h.api.token('wl-e1') });
  expect((await h.liveHolds(show.eventId, 'wl-e1')).map((x) => x.holdId)).toEqual([entry.body.holdId]);
});
