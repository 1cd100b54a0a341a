/**
 * An event's accessibleSeatsForAll over real HTTP: ordinary best-available requests leave wheelchair
 * places and companion seats alone while a block of other seats fits them; once none does, 'when-others-
 * gone' (a new event's default) lets them have those seats, 'never' keeps them for accessible requests.
 */
import { Api, startApi } from '@test/support/seat-api';

let api: Api;

beforeAll(async () => {
  api = await startApi({ HOLD_MAX_SEATS_PER_USER: '100' });
});
afterAll(() => api.close());

/** Row A: 1 a wheelchair place, 2 its companion seat, 3-4 ordinary. */
async function eventWith(settings: Record<string, unknown>) {
  const admin = await api.token('admin-1', ['admin']);
  return api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Access for all',
      startsAt: '2030-01-01T20:00:00Z',
      settings,
      sections: [
        { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4, accessible: [1], companion: [2] }] },
      ],
    },
  });
}

async function pairs(eventId: string) {
  const token = await api.token('fan-all');
  const hold = () =>
    api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { bestAvailable: { quantity: 2 } } });
  return { token, hold };
}

it('when-others-gone (the default): an ordinary request gets the accessible seats only once the others are held', async () => {
  const created = await eventWith({});
  expect(created.status).toBe(201);
  const eventId = created.body.eventId as string;
  const { token, hold } = await pairs(eventId);
  const read = await api.call('GET', `/v1/events/${eventId}`, { token });
  expect(read.body.settings.accessibleSeatsForAll).toBe('when-others-gone');
  // 1-2 and 3-4 strand nothing and are as near the centre: the place and its companion are left alone
  expect((await hold()).body.seatIds).toEqual(['S-A-3', 'S-A-4']);
  // no other block left: the place and its companion go to this request rather than stay unsold
  expect((await hold()).body.seatIds).toEqual(['S-A-1', 'S-A-2']);
  const none = await hold();
  expect([none.status, none.body.errors]).toEqual([409, [{ reason: 'SOLD_OUT', splitAvailable: false }]]);
});

it('never: ordinary requests never get them; accessible requests still do', async () => {
  const created = await eventWith({ accessibleSeatsForAll: 'never' });
  expect(created.status).toBe(201);
  const eventId = created.body.eventId as string;
  const { token, hold } = await pairs(eventId);
  const read = await api.call('GET', `/v1/events/${eventId}`, { token });
  expect(read.body.settings.accessibleSeatsForAll).toBe('never');
  expect((await hold()).body.seatIds).toEqual(['S-A-3', 'S-A-4']);
  const refused = await hold();
  expect([refused.status, refused.body.errors]).toEqual([
    409,
    [{ reason: 'SOLD_OUT', splitAvailable: false }],
  ]);
  const accessible = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: { bestAvailable: { quantity: 2, accessible: true } },
  });
  expect(accessible.body.seatIds).toEqual(['S-A-1', 'S-A-2']);
});

it('400 VALIDATION_FAILED for a value that is not a rule', async () => {
  for (const accessibleSeatsForAll of ['always', null, true]) {
    const r = await eventWith({ accessibleSeatsForAll });
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  }
});
