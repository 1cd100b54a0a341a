/**
 * General-admission areas on the public seat map, over real HTTP, Redis and PostgreSQL: GET and the
 * stream's snapshot list each area with its places; a change in an area goes out as one small `changes`
 * event (its places, never a snapshot), in the same event and version as the seats the same step changed;
 * a client that resumes gets every area's places; a confirm counts the places booked.
 */
import { openSse, SseEvent, SseStream } from '@test/support/sse';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let admin: string;
const open: SseStream[] = [];

beforeAll(async () => {
  api = await startApi({ SEAT_MAP_HEARTBEAT_MS: '200' });
  admin = await api.token('admin-1', ['admin']);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await api?.close();
});

/** Seats S-A-1..4, then an area FLOOR of `capacity` places. */
async function showWithFloor(capacity: number): Promise<string> {
  const r = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 4 }] },
        { name: 'FLOOR', category: 'standing', capacity },
      ],
    },
  });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
}

async function stream(eventId: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const s = await openSse(`${api.base}/v1/events/${eventId}/seats/stream`, headers);
  open.push(s);
  return s;
}

const hold = async (eventId: string, who: string, body: unknown) => {
  const r = await api.call('POST', `/v1/events/${eventId}/holds`, { token: await api.token(who), body });
  expect([r.status, r.body.code]).toEqual([201, undefined]);
  return r.body as { holdId: string };
};

/** The `changes` events that carry an area. */
const areaFrames = (s: SseStream) => s.events.filter((e) => e.event === 'changes' && e.data.areas);
const floorIs = (held: number, booked: number) => (e: SseEvent) =>
  e.event === 'changes' &&
  (e.data.areas ?? []).some((a: any) => a.name === 'FLOOR' && a.held === held && a.booked === booked);

describe('general-admission areas on the seat map', () => {
  it('GET and the snapshot list each area with its places', async () => {
    const eventId = await showWithFloor(50);
    await hold(eventId, 'ann', { places: [{ area: 'FLOOR', quantity: 3 }] });
    const floor = { name: 'FLOOR', category: 'standing', capacity: 50, free: 47, held: 3, booked: 0 };
    const map = await api.call('GET', `/v1/events/${eventId}/seats`);
    expect(map.status).toBe(200);
    expect(map.body.areas).toEqual([floor]);
    // the seats' counts are of the seats alone
    expect(map.body.counts).toEqual({ total: 4, available: 4, held: 0, booked: 0 });
    // a section's body is of its seats: no areas
    expect((await api.call('GET', `/v1/events/${eventId}/seats?section=S`)).body.areas).toBeUndefined();
    const s = await stream(eventId);
    const snap = await s.next((e) => e.event === 'snapshot', 'the snapshot');
    expect(snap.data.areas).toEqual([floor]);
    expect(snap.data.seats).toHaveLength(4);
  });

  it('a change in an area is one small changes event, not a snapshot; release and confirm too', async () => {
    const eventId = await showWithFloor(10);
    const s = await stream(eventId);
    const snap = await s.next((e) => e.event === 'snapshot', 'the snapshot');

    const h = await hold(eventId, 'bea', { places: [{ area: 'FLOOR', quantity: 2 }] });
    const held = await s.next(floorIs(2, 0), 'FLOOR with 2 held');
    expect(held.data).toEqual({
      version: snap.data.version + 1,
      changes: [],
      counts: { total: 4, available: 4, held: 0, booked: 0 },
      areas: [{ name: 'FLOOR', free: 8, held: 2, booked: 0 }],
    });
    expect(held.id).toBe(`${snap.id!.split(':')[0]}:${held.data.version}`);

    const r = await api.call('DELETE', `/v1/holds/${h.holdId}`, { token: await api.token('bea') });
    expect(r.status).toBe(204);
    await s.next(floorIs(0, 0), 'FLOOR free again');

    const c = await hold(eventId, 'cid', { places: [{ area: 'FLOOR', quantity: 4 }] });
    await s.next(floorIs(4, 0), 'FLOOR with 4 held');
    const confirmed = await api.call('POST', `/v1/holds/${c.holdId}/confirm`, {
      token: await api.token('cid'),
      body: { orderId: 'o-cid' },
    });
    expect(confirmed.status).toBe(201);
    const booked = await s.next(floorIs(0, 4), 'FLOOR with 4 booked');
    expect(booked.data.areas).toEqual([{ name: 'FLOOR', free: 6, held: 0, booked: 4 }]);

    // one event per change: hold, release, hold, confirm; and the snapshot was the only one
    expect(areaFrames(s).map((e) => e.data.areas[0])).toEqual([
      { name: 'FLOOR', free: 8, held: 2, booked: 0 },
      { name: 'FLOOR', free: 10, held: 0, booked: 0 },
      { name: 'FLOOR', free: 6, held: 4, booked: 0 },
      { name: 'FLOOR', free: 6, held: 0, booked: 4 },
    ]);
    expect(s.events.filter((e) => e.event === 'snapshot')).toEqual([snap]);
    // small: the area's places, no seat list
    expect(Buffer.byteLength(JSON.stringify(booked.data))).toBeLessThan(200);
  });

  it('seats and places of one step go out in one event, in order with the seat changes around them', async () => {
    const eventId = await showWithFloor(10);
    const s = await stream(eventId);
    await s.next((e) => e.event === 'snapshot', 'the snapshot');

    await hold(eventId, 'dan', { seatIds: ['S-A-1'] });
    const seat = await s.next(
      (e) => e.event === 'changes' && e.data.changes.some((c: any) => c.seatId === 'S-A-1'),
      'S-A-1 held',
    );
    await hold(eventId, 'eli', { seatIds: ['S-A-2', 'S-A-3'], places: [{ area: 'FLOOR', quantity: 1 }] });
    const mixed = await s.next(floorIs(1, 0), 'the mixed hold');
    expect(mixed.data.version).toBe(seat.data.version + 1);
    expect(mixed.data.changes).toEqual(
      expect.arrayContaining([
        { seatId: 'S-A-2', status: 'HELD' },
        { seatId: 'S-A-3', status: 'HELD' },
      ]),
    );
    expect(mixed.data.counts).toEqual({ total: 4, available: 1, held: 3, booked: 0 });
    await hold(eventId, 'fay', { seatIds: ['S-A-4'] });
    const after = await s.next(
      (e) => e.event === 'changes' && e.data.changes.some((c: any) => c.seatId === 'S-A-4'),
      'S-A-4 held',
    );
    expect(after.data.version).toBe(mixed.data.version + 1);
    expect(after.data.areas).toBeUndefined(); // no area changed
  });

  it('a client that resumes is sent every area as it is now', async () => {
    const eventId = await showWithFloor(10);
    const s1 = await stream(eventId);
    const snap = await s1.next((e) => e.event === 'snapshot', 'the snapshot');
    await s1.close();
    await hold(eventId, 'gus', { places: [{ area: 'FLOOR', quantity: 3 }] });
    await hold(eventId, 'hal', { seatIds: ['S-A-1'] });

    const resumed = await stream(eventId, { 'last-event-id': snap.id! });
    const first = await resumed.next(() => true, 'the first event');
    expect(first.event).toBe('changes');
    expect(first.data.changes).toEqual([{ seatId: 'S-A-1', status: 'HELD' }]);
    expect(first.data.areas).toEqual([{ name: 'FLOOR', free: 7, held: 3, booked: 0 }]);
  });
});
