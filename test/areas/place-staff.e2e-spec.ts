/**
 * Staff actions on places of general-admission areas, against the real services: a hold on a customer's
 * behalf with places, staff reads of holds and bookings showing places, a force release and a booking
 * cancel giving places back (audited), an idempotent hold replayed without taking places twice, and an
 * event cancel releasing holds of places alone.
 */
import { Api, createEventWithFloor, startApi } from '@test/support/seat-api';

jest.setTimeout(60_000);

let api: Api;
let admin: string;

beforeAll(async () => {
  api = await startApi({ SEAT_LOCK_WAIT_MS: '5000' });
  admin = await api.token('admin-1', ['admin']);
});
afterAll(() => api?.close());

/** Seats S-A-1..4 and an area FLOOR of `capacity` places. */
const showWithFloor = (capacity: number) => createEventWithFloor(api, capacity);

const floorOf = async (eventId: string) =>
  (await api.call('GET', `/v1/events/${eventId}`, { token: admin })).body.areas[0] as Record<string, number>;

it('a hold on behalf takes places, staff list it with them, a force release gives them back', async () => {
  const eventId = await showWithFloor(10);
  const made = await api.call('POST', `/v1/events/${eventId}/holds/on-behalf`, {
    token: admin,
    body: { customerId: 'cust-1', places: [{ area: 'FLOOR', quantity: 4 }] },
  });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({
    userId: 'cust-1',
    seatIds: [],
    places: [{ area: 'FLOOR', quantity: 4 }],
  });
  expect(await floorOf(eventId)).toMatchObject({ free: 6, held: 4 });

  const list = await api.call('GET', `/v1/events/${eventId}/holds`, { token: admin });
  expect(list.body.items).toEqual([
    expect.objectContaining({ holdId: made.body.holdId, places: [{ area: 'FLOOR', quantity: 4 }] }),
  ]);

  const released = await api.call('POST', `/v1/holds/${made.body.holdId}/force-release`, {
    token: admin,
    body: { reason: 'customer left' },
  });
  expect(released.status).toBe(200);
  expect(await floorOf(eventId)).toMatchObject({ free: 10, held: 0 });
  const audit = await api.call('GET', `/v1/events/${eventId}/audit`, { token: admin });
  expect(audit.body.items.map((i: { action: string }) => i.action)).toEqual([
    'HOLD_ON_BEHALF',
    'HOLD_FORCE_RELEASE',
  ]);
  expect(audit.body.items[0].detail).toMatchObject({ places: [{ area: 'FLOOR', quantity: 4 }] });
});

it('a booking of places is listed with them; its cancel gives them back once, however often it is sent', async () => {
  const eventId = await showWithFloor(10);
  const cust = await api.token('cust-2');
  const h = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: cust,
    body: { places: [{ area: 'FLOOR', quantity: 3 }] },
  });
  const c = await api.call('POST', `/v1/holds/${h.body.holdId}/confirm`, {
    token: cust,
    body: { orderId: 'o-1' },
  });
  expect(c.status).toBe(201);
  expect(await floorOf(eventId)).toMatchObject({ free: 7, booked: 3 });
  const list = await api.call('GET', `/v1/events/${eventId}/bookings`, { token: admin });
  expect(list.body.items).toEqual([
    expect.objectContaining({ bookingId: c.body.bookingId, places: [{ area: 'FLOOR', quantity: 3 }] }),
  ]);
  const cancel = () =>
    api.call('POST', `/v1/events/${eventId}/bookings/${c.body.bookingId}/cancel`, {
      token: admin,
      body: { reason: 'refund' },
    });
  const first = await cancel();
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ status: 'CANCELLED', places: [{ area: 'FLOOR', quantity: 3 }] });
  expect(await floorOf(eventId)).toMatchObject({ free: 10, booked: 0 });
  expect((await cancel()).status).toBe(409);
  expect(await floorOf(eventId)).toMatchObject({ free: 10, booked: 0 });
});

it('an Idempotency-Key replays a hold of places without taking them twice', async () => {
  const eventId = await showWithFloor(10);
  const token = await api.token('cust-3');
  const send = () =>
    api.call('POST', `/v1/events/${eventId}/holds`, {
      token,
      body: { places: [{ area: 'FLOOR', quantity: 2 }] },
      headers: { 'idempotency-key': 'k-places-1' },
    });
  const a = await send();
  const b = await send();
  expect([a.status, b.status]).toEqual([201, 201]);
  expect(b.headers.get('idempotent-replayed')).toBe('true');
  expect(b.body.holdId).toBe(a.body.holdId);
  expect(await floorOf(eventId)).toMatchObject({ free: 8, held: 2 });
});

it('an event cancel releases holds of places alone and of places with seats', async () => {
  const eventId = await showWithFloor(10);
  const [ann, bob] = [await api.token('ann'), await api.token('bob')];
  const placesOnly = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: ann,
    body: { places: [{ area: 'FLOOR', quantity: 2 }] },
  });
  const mixed = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token: bob,
    body: { seatIds: ['S-A-1'], places: [{ area: 'FLOOR', quantity: 3 }] },
  });
  expect([placesOnly.status, mixed.status]).toEqual([201, 201]);
  const r = await api.call('POST', `/v1/events/${eventId}/cancel`, { token: admin });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ sales: 'CANCELLED', releasedHolds: 2 });
  expect(await floorOf(eventId)).toMatchObject({ free: 10, held: 0 });
  const read = await api.call('GET', `/v1/holds/${placesOnly.body.holdId}`, { token: ann });
  expect(read.body.status).toBe('RELEASED');
});
