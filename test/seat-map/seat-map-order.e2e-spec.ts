/**
 * The layout comes back in the order the admin posted it: sections as posted (the first is the one drawn
 * next to the stage), rows as posted within a section, seats in numeric order within a row, in GET and in
 * the stream's snapshot (the seat picker draws sections and rows in the order the API lists them).
 */
import { openSse } from '@test/support/sse';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
beforeAll(async () => {
  api = await startApi({});
});
afterAll(async () => {
  await api?.close();
});

const posted = [
  { name: 'STALLS', category: 'standard', rows: [{ row: 'A', seats: 12 }] },
  {
    name: 'BALCONY',
    category: 'premium',
    rows: [
      { row: 'K', seats: 3 },
      { row: 'B', seats: 2 },
    ],
  },
];
const inPostedOrder = [
  ...Array.from({ length: 12 }, (_, i) => `STALLS-A-${i + 1}`),
  'BALCONY-K-1',
  'BALCONY-K-2',
  'BALCONY-K-3',
  'BALCONY-B-1',
  'BALCONY-B-2',
];

it('lists sections, rows and seats in the order the admin posted them (seats by number)', async () => {
  const admin = await api.token('admin-1', ['admin']);
  const created = await api.call('POST', '/v1/events', {
    token: admin,
    body: { name: 'Order', startsAt: '2030-01-01T20:00:00Z', sections: posted },
  });
  expect(created.status).toBe(201);
  const eventId = created.body.eventId;
  const map = await api.call('GET', `/v1/events/${eventId}/seats`);
  expect(map.body.seats.map((s: any) => s.seatId)).toEqual(inPostedOrder);
  const balcony = await api.call('GET', `/v1/events/${eventId}/seats?section=BALCONY`);
  expect(balcony.body.seats.map((s: any) => s.seatId)).toEqual(inPostedOrder.slice(12));
  const s = await openSse(`${api.base}/v1/events/${eventId}/seats/stream`);
  try {
    const snap = await s.next((e) => e.event === 'snapshot', 'the snapshot');
    expect(snap.data.seats.map((x: any) => x.seatId)).toEqual(inPostedOrder);
  } finally {
    await s.close();
  }
});
