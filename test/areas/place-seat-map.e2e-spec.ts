/**
 * The public seat map of an event with a general-admission area: GET reports the area's places with the
 * seats (a new version, so a new ETag, when they change), and the stream sends its snapshot with the areas
 * and then one small `areas` event per change of an area, not a snapshot.
 */
import { openSse, SseStream } from '@test/support/sse';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let admin: string;
let eventId: string;
const open: SseStream[] = [];

beforeAll(async () => {
  api = await startApi({ SEAT_MAP_HEARTBEAT_MS: '200' });
  admin = await api.token('admin-1', ['admin']);
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] },
        { name: 'FLOOR', category: 'standing', capacity: 500 },
      ],
    },
  });
  expect(r.status).toBe(201);
  eventId = r.body.eventId as string;
});
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  await api?.close();
});

const placeHold = async (quantity: number) => {
  const token = await api.token(`fan-${quantity}-${Math.random()}`);
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
    token,
    body: { places: [{ area: 'FLOOR', quantity }] },
  });
  expect(r.status).toBe(201);
  return { token, holdId: r.body.holdId as string };
};

it('GET reports the area with the seats; a change of its places is a new version', async () => {
  const first = await api.call('GET', `/v1/events/${eventId}/seats`);
  expect(first.status).toBe(200);
  expect(first.body.areas).toEqual([
    { name: 'FLOOR', capacity: 500, free: 500, held: 0, booked: 0, blocked: 0 },
  ]);
  expect(first.body.seats).toHaveLength(4);
  const etag = first.headers.get('etag')!;
  await placeHold(3);
  const second = await api.call('GET', `/v1/events/${eventId}/seats`, { headers: { 'if-none-match': etag } });
  expect(second.status).toBe(200);
  expect(second.body.areas).toEqual([
    { name: 'FLOOR', capacity: 500, free: 497, held: 3, booked: 0, blocked: 0 },
  ]);
  expect(second.body.version).toBeGreaterThan(first.body.version);
  // a section's body lists its seats alone
  const section = await api.call('GET', `/v1/events/${eventId}/seats?section=S`);
  expect(section.body).not.toHaveProperty('areas');
});

it('the stream starts with the areas and sends one small `areas` event per change', async () => {
  const s = await openSse(`${api.base}/v1/events/${eventId}/seats/stream`);
  open.push(s);
  const snapshot = await s.next((e) => e.event === 'snapshot', 'snapshot');
  const before = (snapshot.data.areas as { free: number }[])[0].free;
  const { token, holdId } = await placeHold(2);
  const held = await s.next(
    (e) => e.event === 'areas' && e.data.areas[0].free === before - 2,
    'areas event of the hold',
  );
  expect(held.data.areas).toEqual([
    { name: 'FLOOR', capacity: 500, free: before - 2, held: 500 - before + 2, booked: 0, blocked: 0 },
  ]);
  expect(held.data.version).toBeGreaterThan(snapshot.data.version);
  expect(JSON.stringify(held.data).length).toBeLessThan(200);
  expect((await api.call('DELETE', `/v1/holds/${holdId}`, { token })).status).toBe(204);
  await s.next((e) => e.event === 'areas' && e.data.areas[0].free === before, 'areas event of the release');
  // never a second snapshot for a change of places
  expect(s.events.filter((e) => e.event === 'snapshot')).toHaveLength(1);
});
