/**
 * General-admission areas on the seat map's stream, beyond what test/areas/place-seat-map.e2e-spec.ts
 * shows: one `areas` event per change through a hold, release, hold and confirm (the places booked), in
 * order with the seat changes (a step that changes seats and places sends its `changes` and then its
 * `areas`, of one version); the snapshot names each area's category; a client that resumes is sent every
 * area as it is now.
 */
import { openSse, SseEvent, SseStream } from '@test/support/sse';
import { Api, createEventWithFloor, startApi } from '@test/support/seat-api';

let api: Api;
const open: SseStream[] = [];

beforeAll(async () => {
  api = await startApi({ SEAT_MAP_HEARTBEAT_MS: '200' });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await api?.close();
});

/** Seats S-A-1..4 and an area FLOOR of `capacity` places. */
const showWithFloor = (capacity: number) => createEventWithFloor(api, capacity);

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

const floor = (free: number, held: number, booked: number) => ({
  name: 'FLOOR',
  category: 'standing',
  capacity: 10,
  free,
  held,
  booked,
  blocked: 0,
});
const floorIs = (held: number, booked: number) => (e: SseEvent) =>
  e.event === 'areas' && e.data.areas.some((a: any) => a.held === held && a.booked === booked);

describe('general-admission areas on the seat-map stream', () => {
  it('one `areas` event per change: hold, release, hold, confirm; never a snapshot', async () => {
    const eventId = await showWithFloor(10);
    const s = await stream(eventId);
    const snap = await s.next((e) => e.event === 'snapshot', 'the snapshot');
    expect(snap.data.areas).toEqual([floor(10, 0, 0)]);

    const h = await hold(eventId, 'bea', { places: [{ area: 'FLOOR', quantity: 2 }] });
    const held = await s.next(floorIs(2, 0), 'FLOOR with 2 held');
    expect(held.data).toEqual({ version: snap.data.version + 1, areas: [floor(8, 2, 0)] });
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
    await s.next(floorIs(0, 4), 'FLOOR with 4 booked');

    expect(s.events.filter((e) => e.event === 'areas').map((e) => e.data.areas)).toEqual([
      [floor(8, 2, 0)],
      [floor(10, 0, 0)],
      [floor(6, 4, 0)],
      [floor(6, 0, 4)],
    ]);
    // places alone moved: no seat change was sent, and the snapshot was the only one
    expect(s.events.filter((e) => e.event === 'changes')).toEqual([]);
    expect(s.events.filter((e) => e.event === 'snapshot')).toEqual([snap]);
  });

  it('seats and places of one step: its `changes`, then its `areas`, one version, in order with the rest', async () => {
    const eventId = await showWithFloor(10);
    const s = await stream(eventId);
    await s.next((e) => e.event === 'snapshot', 'the snapshot');
    const seatChange = (seatId: string) => (e: SseEvent) =>
      e.event === 'changes' && e.data.changes.some((c: any) => c.seatId === seatId);

    await hold(eventId, 'dan', { seatIds: ['S-A-1'] });
    const before = await s.next(seatChange('S-A-1'), 'S-A-1 held');
    await hold(eventId, 'eli', { seatIds: ['S-A-2', 'S-A-3'], places: [{ area: 'FLOOR', quantity: 1 }] });
    const places = await s.next(floorIs(1, 0), 'the mixed hold');
    const seats = await s.next(seatChange('S-A-2'), 'its seats');
    expect(s.events.indexOf(seats)).toBe(s.events.indexOf(places) - 1);
    expect(seats.data.version).toBe(before.data.version + 1);
    expect(places.data.version).toBe(seats.data.version);
    expect(seats.data.changes).toEqual(
      expect.arrayContaining([
        { seatId: 'S-A-2', status: 'HELD' },
        { seatId: 'S-A-3', status: 'HELD' },
      ]),
    );
    await hold(eventId, 'fay', { seatIds: ['S-A-4'] });
    const after = await s.next(seatChange('S-A-4'), 'S-A-4 held');
    expect(after.data.version).toBe(places.data.version + 1);
    expect(s.events.indexOf(after)).toBeGreaterThan(s.events.indexOf(places));
    expect(s.events.filter((e) => e.event === 'areas')).toEqual([places]);
  });

  it('a client that resumes is sent every area as it is now', async () => {
    const eventId = await showWithFloor(10);
    // another client keeps the event's stream going: the area's change goes out to it while the first is away
    const other = await stream(eventId);
    await other.next((e) => e.event === 'snapshot', 'the other snapshot');
    const s1 = await stream(eventId);
    const snap = await s1.next((e) => e.event === 'snapshot', 'the snapshot');
    await s1.close();
    await hold(eventId, 'gus', { places: [{ area: 'FLOOR', quantity: 3 }] });
    await other.next(floorIs(3, 0), 'the area change, sent to the client still there');
    await hold(eventId, 'hal', { seatIds: ['S-A-1'] });
    await other.next((e) => e.event === 'changes', 'the seat change, sent to the client still there');

    const resumed = await stream(eventId, { 'last-event-id': snap.id! });
    const areas = await resumed.next((e) => e.event === 'areas', 'the areas');
    expect(resumed.events.map((e) => e.event)).toEqual(['changes', 'areas']);
    expect(resumed.events[0].data.changes).toEqual([{ seatId: 'S-A-1', status: 'HELD' }]);
    expect(areas.data.areas).toEqual([floor(7, 3, 0)]);
  });
});
