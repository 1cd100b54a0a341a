/**
 * Best-available holds over real HTTP (POST /v1/events/{id}/holds with bestAvailable): the seats picked,
 * the 409 reasons, bad input, a best-available hold treated as any other (seat map, release, confirm), and
 * many clients at once never sharing a seat nor meeting a 503.
 */
import { randomUUID } from 'node:crypto';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;

beforeAll(async () => {
  api = await startApi({ HOLD_MAX_SEATS_PER_USER: '100' });
});
afterAll(() => api.close());

const hold = (eventId: string, token: string, body: unknown) =>
  api.call('POST', `/v1/events/${eventId}/holds`, { token, body });

/** Section FRONT (premium, rows A, B of 6) then BACK (standard, row A of 6). */
async function twoSectionEvent(): Promise<string> {
  const admin = await api.token('admin-1', ['admin']);
  const res = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Two sections',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        {
          name: 'FRONT',
          category: 'premium',
          rows: [
            { row: 'A', seats: 6 },
            { row: 'B', seats: 6 },
          ],
        },
        { name: 'BACK', category: 'standard', rows: [{ row: 'A', seats: 6 }] },
      ],
    },
  });
  expect(res.status).toBe(201);
  return res.body.eventId as string;
}

it('holds seats side by side in the front row, nearest its centre, as an ordinary hold', async () => {
  const eventId = await createEvent(api, 3, 10);
  const token = await api.token('fan-1');
  const r = await hold(eventId, token, { bestAvailable: { quantity: 4 }, ttlSeconds: 120 });
  expect(r.status).toBe(201);
  // 4-7 is the centre but leaves 3 seats either side; 3-6 leaves 2 and 4, which pairs fill to the end
  expect(r.body.seatIds).toEqual(['S-A-3', 'S-A-4', 'S-A-5', 'S-A-6']);
  expect(r.body.status).toBe('ACTIVE');
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token });
  const held = (map.body.seats as { seatId: string; status: string }[])
    .filter((s) => s.status === 'HELD')
    .map((s) => s.seatId);
  expect(held.sort()).toEqual([...r.body.seatIds].sort());
  // extended like any hold
  const extended = await api.call('POST', `/v1/holds/${r.body.holdId}/extend`, {
    token,
    body: { ttlSeconds: 300 },
    headers: { 'idempotency-key': randomUUID() },
  });
  expect([extended.status, extended.body.seatIds]).toEqual([200, r.body.seatIds]);
  expect(Date.parse(extended.body.expiresAt)).toBeGreaterThan(Date.parse(r.body.expiresAt));
  // released like any hold; its seats are picked again
  const released = await api.call('DELETE', `/v1/holds/${r.body.holdId}`, { token });
  expect(released.status).toBe(204);
  const again = await hold(eventId, token, { bestAvailable: { quantity: 4 } });
  expect(again.body.seatIds).toEqual(['S-A-3', 'S-A-4', 'S-A-5', 'S-A-6']);
  const confirmed = await api.call('POST', `/v1/holds/${again.body.holdId}/confirm`, {
    token,
    body: { orderId: `order-${randomUUID()}` },
    headers: { 'idempotency-key': randomUUID() },
  });
  expect(confirmed.status).toBe(201);
});

it('a seat held by id is never picked; the next block leaves no seat alone', async () => {
  const eventId = await createEvent(api, 2, 6);
  const token = await api.token('fan-2');
  expect((await hold(eventId, token, { seatIds: ['S-A-3'] })).status).toBe(201);
  // row A: 1-2 and 4-6 free: 3 together only as 4-6; row B is behind it
  const r = await hold(eventId, token, { bestAvailable: { quantity: 3 } });
  expect(r.body.seatIds).toEqual(['S-A-4', 'S-A-5', 'S-A-6']);
});

it('filters by category and section', async () => {
  const eventId = await twoSectionEvent();
  const token = await api.token('fan-3');
  const back = await hold(eventId, token, { bestAvailable: { quantity: 2, category: 'standard' } });
  expect(back.status).toBe(201);
  expect(back.body.seatIds.every((s: string) => s.startsWith('BACK-A-'))).toBe(true);
  const front = await hold(eventId, token, { bestAvailable: { quantity: 2, section: 'FRONT' } });
  expect(front.body.seatIds.every((s: string) => s.startsWith('FRONT-A-'))).toBe(true);
});

it("follows the layout's own row ranks: ranked rows first, lowest first", async () => {
  const admin = await api.token('admin-1', ['admin']);
  const res = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Ranked',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        {
          name: 'S',
          category: 'standard',
          rows: [
            { row: 'A', seats: 4 },
            { row: 'B', seats: 4, rank: 2 },
            { row: 'C', seats: 4, rank: 1 },
          ],
        },
      ],
    },
  });
  expect(res.status).toBe(201);
  const token = await api.token('fan-rank');
  const hold = (quantity: number) =>
    api.call('POST', `/v1/events/${res.body.eventId}/holds`, {
      token,
      body: { bestAvailable: { quantity } },
    });
  const read = await api.call('GET', `/v1/events/${res.body.eventId}`, { token });
  expect(read.body.sections[0].rows[1]).toEqual({ row: 'B', seats: 4, rank: 2 });
  expect((await hold(4)).body.seatIds).toEqual(['S-C-1', 'S-C-2', 'S-C-3', 'S-C-4']);
  expect((await hold(4)).body.seatIds).toEqual(['S-B-1', 'S-B-2', 'S-B-3', 'S-B-4']);
  expect((await hold(4)).body.seatIds).toEqual(['S-A-1', 'S-A-2', 'S-A-3', 'S-A-4']);
});

it('wheelchair places and companion seats go to accessible requests only, a place in every such block', async () => {
  const admin = await api.token('admin-1', ['admin']);
  const res = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Access',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        {
          name: 'S',
          category: 'standard',
          rows: [
            { row: 'A', seats: 6, accessible: [1, 6], companion: [2, 5] },
            { row: 'B', seats: 6 },
          ],
        },
      ],
    },
  });
  expect(res.status).toBe(201);
  const eventId = res.body.eventId as string;
  const token = await api.token('fan-access');
  // the layout reads back as posted
  const read = await api.call('GET', `/v1/events/${eventId}`, { token });
  expect(read.body.sections[0].rows).toEqual([
    { row: 'A', seats: 6, accessible: [1, 6], companion: [2, 5] },
    { row: 'B', seats: 6 },
  ]);
  const hold = (bestAvailable: Record<string, unknown>) =>
    api.call('POST', `/v1/events/${eventId}/holds`, { token, body: { bestAvailable } });
  // an ordinary request of 2 in row A would take 3-4 only: the front row's centre, A's places kept free
  expect((await hold({ quantity: 2 })).body.seatIds).toEqual(['S-A-3', 'S-A-4']);
  const pair = await hold({ quantity: 2, accessible: true });
  expect(pair.status).toBe(201);
  expect(pair.body.seatIds).toEqual(['S-A-1', 'S-A-2']);
  expect((await hold({ quantity: 1, accessible: true })).body.seatIds).toEqual(['S-A-6']);
  // the last companion seat alone holds no place: nothing left for an accessible request
  const none = await hold({ quantity: 1, accessible: true });
  expect([none.status, none.body.errors]).toEqual([
    409,
    [{ reason: 'NOT_ENOUGH_TOGETHER', splitAvailable: true }],
  ]);
  // ordinary requests never get A-5, the companion seat: row B it is (2-5 would strand B-1 and B-6)
  expect((await hold({ quantity: 4 })).body.seatIds).toEqual(['S-B-1', 'S-B-2', 'S-B-3', 'S-B-4']);
  // a layout mark past the row's seats is refused, and accessible on an event with no places
  const bad = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Bad',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [{ name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4, accessible: [5] }] }],
    },
  });
  expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  const plain = await createEvent(api, 1, 4);
  const refused = await api.call('POST', `/v1/events/${plain}/holds`, {
    token,
    body: { bestAvailable: { quantity: 1, accessible: true } },
  });
  expect([refused.status, refused.body.code]).toEqual([400, 'VALIDATION_FAILED']);
});

it('a sale of pairs fills a row of 8 to its last seat: no block leaves an odd gap beside it when another is as good', async () => {
  const eventId = await createEvent(api, 1, 8);
  const token = await api.token('fan-pairs');
  const held: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await hold(eventId, token, { bestAvailable: { quantity: 2 } });
    expect(r.status).toBe(201);
    held.push(...(r.body.seatIds as string[]));
  }
  expect(held.sort()).toEqual(Array.from({ length: 8 }, (_, k) => `S-A-${k + 1}`).sort());
});

it('409 SEATS_UNAVAILABLE: NOT_ENOUGH_TOGETHER says whether a split would do; SOLD_OUT', async () => {
  const eventId = await createEvent(api, 1, 4);
  const token = await api.token('fan-4');
  expect((await hold(eventId, token, { seatIds: ['S-A-2'] })).status).toBe(201);
  const apart = await hold(eventId, token, { bestAvailable: { quantity: 3 } });
  expect(apart.status).toBe(409);
  expect(apart.body.code).toBe('SEATS_UNAVAILABLE');
  expect(apart.body.errors).toEqual([{ reason: 'NOT_ENOUGH_TOGETHER', splitAvailable: true }]);
  const tooMany = await hold(eventId, token, { bestAvailable: { quantity: 4 } });
  expect(tooMany.body.errors).toEqual([{ reason: 'NOT_ENOUGH_TOGETHER', splitAvailable: false }]);
  expect((await hold(eventId, token, { seatIds: ['S-A-1', 'S-A-3', 'S-A-4'] })).status).toBe(201);
  const soldOut = await hold(eventId, token, { bestAvailable: { quantity: 1 } });
  expect(soldOut.status).toBe(409);
  expect(soldOut.body.errors).toEqual([{ reason: 'SOLD_OUT', splitAvailable: false }]);
});

it('bad input is refused 400 and holds nothing', async () => {
  const eventId = await createEvent(api, 1, 10);
  const token = await api.token('fan-5');
  const bodies = [
    { bestAvailable: { quantity: 0 } },
    { bestAvailable: { quantity: 11 } },
    { bestAvailable: { quantity: 2.5 } },
    { bestAvailable: {} },
    { bestAvailable: { quantity: 2, accessible: 'yes' } },
    { bestAvailable: { quantity: 2, accessible: false } },
    { bestAvailable: { quantity: 2, category: 'no-such-category' } },
    { bestAvailable: { quantity: 2, section: 'NOPE' } },
    { bestAvailable: null },
    { seatIds: ['S-A-1'], bestAvailable: { quantity: 1 } },
    {},
  ];
  for (const body of bodies) {
    const r = await hold(eventId, token, body);
    expect({ body, status: r.status, code: r.body.code }).toEqual({
      body,
      status: 400,
      code: 'VALIDATION_FAILED',
    });
  }
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token });
  expect((map.body.seats as { status: string }[]).every((s) => s.status === 'AVAILABLE')).toBe(true);
});

it('many clients at once: no seat in two holds, every answer 201 or 409, never a 503', async () => {
  const eventId = await createEvent(api, 4, 12);
  const tokens = await Promise.all(Array.from({ length: 40 }, (_, i) => api.token(`crowd-${i}`)));
  const results = await Promise.all(
    tokens.map((token, i) => hold(eventId, token, { bestAvailable: { quantity: 1 + (i % 4) } })),
  );
  const statuses = new Set(results.map((r) => r.status));
  expect([...statuses].every((s) => s === 201 || s === 409)).toBe(true);
  const won = results.filter((r) => r.status === 201).flatMap((r) => r.body.seatIds as string[]);
  expect(new Set(won).size).toBe(won.length);
  // 48 seats and 100 asked for: the event fills up, and only the last seats are refused
  expect(won.length).toBeGreaterThan(36);
  const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: tokens[0] });
  const held = (map.body.seats as { seatId: string; status: string }[])
    .filter((s) => s.status === 'HELD')
    .map((s) => s.seatId);
  expect(held.sort()).toEqual([...won].sort());
});

it('the OpenAPI document offers seatIds or bestAvailable, neither required alone', async () => {
  const doc = (await api.call('GET', '/docs-json')).body;
  const schema = doc.components.schemas.CreateHoldDto;
  expect(schema.required ?? []).not.toContain('seatIds');
  expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['seatIds', 'bestAvailable']));
  const best = doc.components.schemas.BestAvailableDto;
  expect(best.properties.quantity).toMatchObject({ minimum: 1, maximum: 10 });
  expect(best.required).toEqual(['quantity']);
});
