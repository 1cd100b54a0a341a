/**
 * Box-office staff read an event's bookings from PostgreSQL: agents and admins list them (paged, oldest
 * first) and look one up by its order id; customers may not (403); bad paging is 400, an unknown event 404.
 */
import { confirmHold, holdSeats } from '../support/confirm-agreement';
import { Api, createEvent, startApi } from '../support/seat-api';

jest.setTimeout(60_000);

let api: Api;
let eventId: string;
let agent: string;
let admin: string;
let alice: string;

beforeAll(async () => {
  api = await startApi();
  eventId = await createEvent(api, 1, 10);
  agent = await api.token('agent-1', ['agent']);
  admin = await api.token('admin-1', ['admin']);
  alice = await api.token('alice');
});
afterAll(() => api?.close());

const bookings = (query = '', token = agent) =>
  api.call('GET', `/v1/events/${eventId}/bookings${query}`, { token });

it('lists the bookings of an event, paged, and finds one by its order id', async () => {
  const held = [];
  for (const [i, seats] of [['S-A-1'], ['S-A-2', 'S-A-3'], ['S-A-4']].entries()) {
    const h = await holdSeats(api, alice, eventId, seats);
    expect((await confirmHold(api, h, `order-${i}`)).status).toBe(201);
    held.push(h);
  }
  await holdSeats(api, alice, eventId, ['S-A-5']); // held, not booked: not listed

  const all = await bookings();
  expect(all.status).toBe(200);
  expect(all.body.total).toBe(3);
  expect(all.body.items.map((b: { orderId: string }) => b.orderId)).toEqual([
    'order-0',
    'order-1',
    'order-2',
  ]);
  expect(all.body.items[1]).toMatchObject({
    holdId: held[1].holdId,
    eventId,
    seatIds: ['S-A-2', 'S-A-3'],
    status: 'CONFIRMED',
    userId: 'alice',
  });
  const page = await bookings('?limit=1&offset=1', admin);
  expect([page.body.total, page.body.items]).toEqual([3, [all.body.items[1]]]);
  const one = await bookings('?orderId=order-2');
  expect([one.body.total, one.body.items]).toEqual([1, [all.body.items[2]]]);
  expect((await bookings('?orderId=no-such-order')).body).toMatchObject({ total: 0, items: [] });
});

it('refuses customers (403), bad paging (400) and an unknown event (404)', async () => {
  const customer = await bookings('', alice);
  expect([customer.status, customer.body.code]).toEqual([403, 'FORBIDDEN']);
  for (const query of ['?limit=0', '?offset=-1', '?orderId=a%20b', '?userId=alice']) {
    const r = await bookings(query);
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  }
  const unknown = await api.call('GET', `/v1/events/${crypto.randomUUID()}/bookings`, { token: agent });
  expect([unknown.status, unknown.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
});
