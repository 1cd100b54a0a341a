/**
 * GET /v1/events/{eventId}/seats/stream (Server-Sent Events) over real HTTP, real Redis and PostgreSQL:
 * the snapshot first, then batched changes made on other connections; Last-Event-ID (header or query)
 * resumes with only the missed changes, or a fresh snapshot once the change log lost that version;
 * heartbeats; one change-log reader per event however many listen; a bounded number of streams and a
 * rate limit on opening them. Public: a browser's EventSource cannot send a token.
 */
import Redis from 'ioredis';
import { HoldStore } from '../../apps/seat-api/src/hold-store';
import { eventually } from '@test/support/eventually';
import { openSse, SseEvent, SseStream } from '@test/support/sse';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let api: Api;
let alice: string;
/** A plain client on the service's Redis, for what only an operator (or a trimmed log) would do. */
let redis: Redis;
const open: SseStream[] = [];

beforeAll(async () => {
  api = await startApi({ SEAT_MAP_HEARTBEAT_MS: '200', HOLD_MIN_TTL_SECONDS: '1' });
  alice = await api.token('alice');
  redis = new Redis(process.env.REDIS_URL!);
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await api?.close();
  await redis?.quit();
});

async function stream(on: Api, eventId: string, headers: Record<string, string> = {}, query = '') {
  const s = await openSse(`${on.base}/v1/events/${eventId}/seats/stream${query}`, headers);
  open.push(s);
  return s;
}
const hold = (on: Api, eventId: string, seatIds: string[], ttlSeconds = 60) =>
  on.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds, ttlSeconds } });
const release = (on: Api, holdId: string) => on.call('DELETE', `/v1/holds/${holdId}`, { token: alice });
/** The statuses a client knows after applying a stream's events in order, as a seat picker would. */
function applied(events: SseEvent[]): Record<string, string> {
  const seats: Record<string, string> = {};
  for (const e of events) {
    if (e.event === 'snapshot') {
      for (const key of Object.keys(seats)) {
        delete seats[key];
      }
      for (const s of e.data.seats) {
        seats[s.seatId] = s.status;
      }
    } else if (e.event === 'changes') {
      for (const c of e.data.changes) {
        seats[c.seatId] = c.status;
      }
    }
  }
  return seats;
}
const changed = (s: SseStream, seatId: string, status: string) =>
  s.next(
    (e) =>
      e.event === 'changes' && e.data.changes.some((c: any) => c.seatId === seatId && c.status === status),
    `a change of ${seatId} to ${status}`,
  );

async function metric(on: Api, name: string): Promise<number> {
  const text = (await on.call('GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('GET /v1/events/:eventId/seats/stream', () => {
  it('sends the snapshot first, then the changes a hold on another connection makes', async () => {
    const eventId = await createEvent(api, 1, 4);
    await hold(api, eventId, ['S-A-4']);
    const s = await stream(api, eventId); // no token: public
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await s.next(() => true, 'the first event');
    expect(first.event).toBe('snapshot');
    // `<epoch>:<version>`: the epoch tells versions of a log Redis lost from this one's
    expect(first.id).toMatch(new RegExp(`^\\d+:${first.data.version}$`));
    expect(first.data).toEqual({
      eventId,
      version: expect.any(Number),
      counts: { total: 4, available: 3, held: 1, booked: 0 },
      seats: [
        { seatId: 'S-A-1', section: 'S', row: 'A', number: 1, category: 'standard', status: 'AVAILABLE' },
        { seatId: 'S-A-2', section: 'S', row: 'A', number: 2, category: 'standard', status: 'AVAILABLE' },
        { seatId: 'S-A-3', section: 'S', row: 'A', number: 3, category: 'standard', status: 'AVAILABLE' },
        { seatId: 'S-A-4', section: 'S', row: 'A', number: 4, category: 'standard', status: 'HELD' },
      ],
    });
    const h = await hold(api, eventId, ['S-A-1', 'S-A-2']);
    const change = await changed(s, 'S-A-1', 'HELD');
    expect(change.data).toEqual({
      version: Number(change.id!.split(':')[1]),
      changes: expect.arrayContaining([
        { seatId: 'S-A-1', status: 'HELD' },
        { seatId: 'S-A-2', status: 'HELD' },
      ]),
      counts: { total: 4, available: 1, held: 3, booked: 0 },
    });
    expect(change.data.version).toBeGreaterThan(first.data.version);
    await release(api, h.body.holdId);
    await changed(s, 'S-A-2', 'AVAILABLE');
    expect(applied(s.events)).toEqual({
      'S-A-1': 'AVAILABLE',
      'S-A-2': 'AVAILABLE',
      'S-A-3': 'AVAILABLE',
      'S-A-4': 'HELD',
    });
    expect(JSON.stringify(s.events)).not.toContain('alice');
  });

  it('shows a lapsed hold AVAILABLE without waiting for the sweeper', async () => {
    const eventId = await createEvent(api, 1, 2);
    const s = await stream(api, eventId);
    await s.next((e) => e.event === 'snapshot', 'the snapshot');
    await hold(api, eventId, ['S-A-1'], 1);
    await changed(s, 'S-A-1', 'HELD');
    const lapsed = await changed(s, 'S-A-1', 'AVAILABLE');
    expect(lapsed.data.counts).toEqual({ total: 2, available: 2, held: 0, booked: 0 });
  });

  it('resumes from Last-Event-ID (header or ?lastEventId=) with only the changes missed', async () => {
    const eventId = await createEvent(api, 1, 6);
    await hold(api, eventId, ['S-A-6']); // before the client's version: not sent again
    const s1 = await stream(api, eventId);
    const snap = await s1.next((e) => e.event === 'snapshot', 'the snapshot');
    await s1.close();
    const missed = await hold(api, eventId, ['S-A-1', 'S-A-2']);
    await release(api, missed.body.holdId);
    await hold(api, eventId, ['S-A-3']);

    const header = await stream(api, eventId, { 'last-event-id': snap.id! });
    const first = await header.next(() => true, 'the first event');
    expect(first.event).toBe('changes');
    expect(first.data.changes.map((c: any) => c.seatId).sort()).toEqual(['S-A-1', 'S-A-2', 'S-A-3']);
    expect(applied([snap, first])).toEqual({
      'S-A-1': 'AVAILABLE',
      'S-A-2': 'AVAILABLE',
      'S-A-3': 'HELD',
      'S-A-4': 'AVAILABLE',
      'S-A-5': 'AVAILABLE',
      'S-A-6': 'HELD',
    });
    expect(first.data.counts).toEqual({ total: 6, available: 4, held: 2, booked: 0 });
    await hold(api, eventId, ['S-A-4']);
    const live = await changed(header, 'S-A-4', 'HELD'); // and it stays live
    await header.close();

    // ?lastEventId= for clients whose proxy drops the header
    await hold(api, eventId, ['S-A-5']);
    const query = await stream(api, eventId, {}, `?lastEventId=${live.id}`);
    const missed2 = await query.next(() => true, 'the first event');
    expect([missed2.event, missed2.data.changes]).toEqual(['changes', [{ seatId: 'S-A-5', status: 'HELD' }]]);

    // an instance that has never seen this event resumes from the change log in Redis
    const other = await startApi({ SEAT_MAP_HEARTBEAT_MS: '200' });
    try {
      const cold = await stream(other, eventId, { 'last-event-id': snap.id! });
      const fromLog = await cold.next(() => true, 'the first event');
      expect(fromLog.event).toBe('changes');
      expect(fromLog.data.changes.map((c: any) => c.seatId).sort()).toEqual([
        'S-A-1',
        'S-A-2',
        'S-A-3',
        'S-A-4',
        'S-A-5',
      ]);
      await cold.close();
    } finally {
      await other.close();
    }
    expect((await stream(api, eventId, { 'last-event-id': 'nonsense' })).status).toBe(400);
  });

  it('sends a fresh snapshot when the change log no longer has that version', async () => {
    const eventId = await createEvent(api, 1, 3);
    const s1 = await stream(api, eventId);
    const snap = await s1.next((e) => e.event === 'snapshot', 'the snapshot');
    await s1.close();
    await hold(api, eventId, ['S-A-1']);
    await redis.xtrim(
      `${process.env.REDIS_KEY_PREFIX}${api.app.get(HoldStore).layout.eventKeys(eventId).changes}`,
      'MAXLEN',
      0,
    );
    await hold(api, eventId, ['S-A-2']);
    // another instance: it knows nothing of this event but what Redis has
    const other = await startApi({ SEAT_MAP_HEARTBEAT_MS: '200' });
    try {
      const s2 = await stream(other, eventId, { 'last-event-id': snap.id! });
      const first = await s2.next(() => true, 'the first event');
      expect(first.event).toBe('snapshot');
      expect(applied([first])).toEqual({ 'S-A-1': 'HELD', 'S-A-2': 'HELD', 'S-A-3': 'AVAILABLE' });
      // a version this deployment never had is no better
      const s3 = await stream(other, eventId, { 'last-event-id': String(first.data.version + 1000) });
      expect((await s3.next(() => true, 'the first event')).event).toBe('snapshot');
      await Promise.all([s2.close(), s3.close()]);
    } finally {
      await other.close();
    }
  });

  it('sends a heartbeat comment', async () => {
    const eventId = await createEvent(api, 1, 1);
    const s = await stream(api, eventId);
    await eventually(() => s.comments.includes('ping'), 5000, 'a ": ping" heartbeat');
  });

  it('reads the change log once per event however many clients listen', async () => {
    const eventId = await createEvent(api, 1, 3);
    const pollers = await metric(api, 'seat_map_event_pollers');
    const clients = await Promise.all(Array.from({ length: 10 }, () => stream(api, eventId)));
    await Promise.all(clients.map((c) => c.next((e) => e.event === 'snapshot', 'the snapshot')));
    expect((await metric(api, 'seat_map_event_pollers')) - pollers).toBe(1);
    expect((await metric(api, 'seat_map_open_streams')) >= 10).toBe(true);
    await hold(api, eventId, ['S-A-2']);
    await Promise.all(clients.map((c) => changed(c, 'S-A-2', 'HELD')));
    await Promise.all(clients.map((c) => c.close()));
    await eventually(
      async () => (await metric(api, 'seat_map_event_pollers')) === pollers,
      5000,
      'the poller stops with its last client',
    );
  });

  it('answers 404 for an unknown event and 400 for unknown parameters, before streaming', async () => {
    const missing = await stream(api, '0b7c8f7e-1d2a-4c3b-9e8f-7a6b5c4d3e2f');
    expect([missing.status, missing.body.code]).toEqual([404, 'EVENT_NOT_FOUND']);
    const eventId = await createEvent(api, 1, 1);
    const bad = await stream(api, eventId, {}, '?section=S');
    expect([bad.status, bad.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('limits on streams', () => {
  it('refuses streams past SEAT_MAP_MAX_STREAMS with 503 and Retry-After, and frees a slot on disconnect', async () => {
    const small = await startApi({ SEAT_MAP_MAX_STREAMS: '2' });
    try {
      const eventId = await createEvent(small, 1, 2);
      const a = await stream(small, eventId);
      const b = await stream(small, eventId);
      await Promise.all([a, b].map((s) => s.next((e) => e.event === 'snapshot', 'the snapshot')));
      const refused = await stream(small, eventId);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({
        statusCode: 503,
        code: 'TOO_MANY_STREAMS',
        requestId: expect.any(String),
      });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      await a.close();
      let again: SseStream | undefined;
      await eventually(
        async () => {
          const s = await stream(small, eventId);
          again = s.status === 200 ? s : undefined;
          return s.status === 200;
        },
        5000,
        'a slot freed by the disconnect',
      );
      await again!.close();
      await b.close();
    } finally {
      await small.close();
    }
  });

  it('ends open streams when the service shuts down, so it can stop', async () => {
    const closing = await startApi({});
    const eventId = await createEvent(closing, 1, 1);
    const s = await stream(closing, eventId);
    await s.next((e) => e.event === 'snapshot', 'the snapshot');
    const pollers = await metric(closing, 'seat_map_event_pollers');
    await closing.close(); // would wait for the open stream forever if the service did not end it
    expect(await metric(api, 'seat_map_event_pollers')).toBe(pollers - 1);
    await eventually(() => s.ended, 5000, 'the client sees its stream end');
  });

  it('rate limits stream opens per caller address (429, Retry-After)', async () => {
    const limited = await startApi({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_STREAM_OPENS_PER_WINDOW: '2' });
    try {
      const eventId = await createEvent(limited, 1, 1);
      for (let n = 0; n < 2; n++) {
        const s = await stream(limited, eventId);
        expect(s.status).toBe(200);
        await s.close();
      }
      const refused = await stream(limited, eventId);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
      process.env.RATE_LIMIT_ENABLED = 'false';
    }
  });
});
