/**
 * The seat map after Redis lost its data, on a private redis-server (never the shared one): FLUSHALL, and
 * a restart of a server that keeps nothing on disk. The change log starts again at version 0 with a new
 * epoch; an instance whose snapshot is of the lost data must rebuild it from the seats, answer GET with
 * the seats as Redis has them, and send its open streams (and new ones) a fresh snapshot.
 */
import { eventually } from '@test/support/eventually';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';
import { openSse, SseEvent, SseStream } from '@test/support/sse';
import { Api, createEvent, startApi } from '@test/support/seat-api';

let redis: PrivateRedis;
let api: Api;
const open: SseStream[] = [];

beforeAll(async () => {
  redis = await startPrivateRedis();
  api = await startApi({ REDIS_URL: redis.url, SEAT_MAP_HEARTBEAT_MS: '200' });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await api?.close();
  await redis?.stop();
});

async function stream(eventId: string): Promise<SseStream> {
  const s = await openSse(`${api.base}/v1/events/${eventId}/seats/stream`);
  open.push(s);
  return s;
}

/** One hold per seat, each by its own user: one change-log entry (one version) each. */
async function holdEach(eventId: string, seats: string[], who: string): Promise<void> {
  for (const seatId of seats) {
    const token = await api.token(`${who}-${seatId}`);
    const res = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token,
      body: { seatIds: [seatId], ttlSeconds: 600 },
    });
    expect([seatId, res.status]).toEqual([seatId, 201]);
  }
}

async function mapNow(eventId: string): Promise<Record<string, string>> {
  const body = (await api.call('GET', `/v1/events/${eventId}/seats`)).body;
  return Object.fromEntries(body.seats.map((s: any) => [s.seatId, s.status]));
}

function applied(events: SseEvent[]): Record<string, string> {
  let seats: Record<string, string> = {};
  for (const e of events) {
    if (e.event === 'snapshot') {
      seats = Object.fromEntries(e.data.seats.map((s: any) => [s.seatId, s.status]));
    } else if (e.event === 'changes') {
      e.data.changes.forEach((c: any) => (seats[c.seatId] = c.status));
    }
  }
  return seats;
}

/** The same seats with the same statuses, in whatever order. */
const same = (a: Record<string, string>, b: Record<string, string>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `S-A-${from + i}`);
/** S-A-1..5 free (lost with the data), S-A-6..10 held (after the loss). */
const truth = Object.fromEntries([
  ...ids(1, 5).map((id) => [id, 'AVAILABLE']),
  ...ids(6, 10).map((id) => [id, 'HELD']),
]);

/**
 * Five holds (versions 1-5) seen by GET and a stream, then `lose()`, then five other holds: the versions
 * 1-5 again, of a different log.
 */
async function afterLoss(lose: () => Promise<void>): Promise<void> {
  const eventId = await createEvent(api, 1, 10);
  await holdEach(eventId, ids(1, 5), 'before');
  const s = await stream(eventId);
  const first = await s.next((e) => e.event === 'snapshot', 'the first snapshot');
  expect(Object.values(await mapNow(eventId)).filter((st) => st === 'HELD')).toHaveLength(5);

  await lose();
  await holdEach(eventId, ids(6, 10), 'after');

  await eventually(
    async () => same(await mapNow(eventId), truth),
    10_000,
    'GET shows the seats as Redis has them',
  );
  expect(await mapNow(eventId)).toEqual(truth);
  // the open stream: a new snapshot, and what it applied is the truth
  await s.next((e) => e.event === 'snapshot' && e !== first, 'a fresh snapshot after the loss');
  await eventually(
    () => same(applied(s.events), truth),
    5000,
    'the stream client sees the seats as Redis has them',
  );
  // a new stream, and a client resuming from a version of the lost log, start from the truth
  const fresh = await stream(eventId);
  expect(applied([await fresh.next((e) => e.event === 'snapshot', 'a new stream snapshot')])).toEqual(truth);
  const resumed = await openSse(`${api.base}/v1/events/${eventId}/seats/stream`, {
    'last-event-id': first.id!,
  });
  open.push(resumed);
  const resumedFirst = await resumed.next(() => true, 'the resumed stream first event');
  expect(resumedFirst.event).toBe('snapshot');
  expect(applied([resumedFirst])).toEqual(truth);
}

describe('seat map after Redis lost its data', () => {
  it('rebuilds after FLUSHALL: GET, open and new streams show the seats as Redis has them', async () => {
    await afterLoss(async () => {
      await redis.client.flushall();
    });
  });

  it('rebuilds after a restart without persistence', async () => {
    await afterLoss(async () => {
      await redis.stop();
      redis = await redis.restart();
    });
  });
});

describe('general-admission areas after Redis lost its data', () => {
  it("the stream heals: an area's places come back from PostgreSQL and the live holds", async () => {
    const admin = await api.token('admin-1', ['admin']);
    const created = await api.call('POST', '/v1/events', {
      token: admin,
      body: {
        name: 'Gig',
        startsAt: '2030-01-01T20:00:00Z',
        sections: [
          { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 2 }] },
          { name: 'FLOOR', category: 'standing', capacity: 10 },
        ],
      },
    });
    const eventId = created.body.eventId as string;
    const placeHold = async (who: string, quantity: number) => {
      const token = await api.token(who);
      const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
        token,
        body: { places: [{ area: 'FLOOR', quantity }], ttlSeconds: 600 },
      });
      expect(r.status).toBe(201);
      return { token, holdId: r.body.holdId as string };
    };
    // 1 place booked (PostgreSQL keeps it), 2 held (Redis alone knows them)
    const sold = await placeHold('sold', 1);
    const c = await api.call('POST', `/v1/holds/${sold.holdId}/confirm`, {
      token: sold.token,
      body: { orderId: 'o-sold' },
    });
    expect(c.status).toBe(201);
    await placeHold('lost', 2);
    const s = await stream(eventId);
    const first = await s.next((e) => e.event === 'snapshot', 'the first snapshot');
    expect(first.data.areas).toEqual([
      { name: 'FLOOR', category: 'standing', capacity: 10, free: 7, held: 2, booked: 1, blocked: 0 },
    ]);

    await redis.client.flushall();
    await placeHold('after', 3); // the event is repaired before this hold is made

    const healed = {
      name: 'FLOOR',
      category: 'standing',
      capacity: 10,
      free: 6,
      held: 3,
      booked: 1,
      blocked: 0,
    };
    await eventually(
      async () =>
        JSON.stringify((await api.call('GET', `/v1/events/${eventId}/seats`)).body.areas) ===
        JSON.stringify([healed]),
      10_000,
      'GET shows the area as PostgreSQL and the live holds have it',
    );
    // the open stream: what it applied (its snapshots, then its `areas` events) is the healed area
    await s.next((e) => e.event === 'snapshot' && e !== first, 'a fresh snapshot after the loss');
    const shown = () => {
      let floor: Record<string, unknown> = {};
      for (const e of s.events) {
        if (e.event === 'snapshot') {
          floor = { ...e.data.areas[0] };
        } else if (e.event === 'areas') {
          floor = { ...e.data.areas[0] };
        }
      }
      return floor;
    };
    await eventually(
      () => JSON.stringify(shown()) === JSON.stringify(healed),
      5000,
      'the stream client sees the area healed',
    );
    const fresh = await stream(eventId);
    expect((await fresh.next((e) => e.event === 'snapshot', 'a new stream snapshot')).data.areas).toEqual([
      healed,
    ]);
  });
});
