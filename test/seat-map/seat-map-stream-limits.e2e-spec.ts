/**
 * What a seat-map stream may cost the service, over real HTTP, Redis and PostgreSQL: a client that stops
 * reading is dropped once it has taken nothing for SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS (and counted), one
 * that reads slowly but steadily keeps its stream however long its snapshot takes, a caller keeps at
 * most SEAT_MAP_MAX_STREAMS_PER_CALLER streams open, all streams together stay within
 * SEAT_MAP_STREAM_MEMORY_MAX_BYTES, and a client that reads, even one that pauses for a while, still
 * ends up with every change.
 */
import { get, IncomingMessage } from 'node:http';
import { connect, Socket } from 'node:net';
import { eventually } from '@test/support/eventually';
import { openSse, SseEvent, SseStream } from '@test/support/sse';
import { Api, createEvent, startApi } from '@test/support/seat-api';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function stream(on: Api, eventId: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const s = await openSse(`${on.base}/v1/events/${eventId}/seats/stream`, headers);
  open.push(s);
  return s;
}

/** Sum of a metric's samples (every label set), 0 when it has none. */
async function metric(on: Api, name: string, labels = ''): Promise<number> {
  const text = (await on.call('GET', '/metrics')).body as string;
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{${labels}`) || (!labels && l.startsWith(`${name} `)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** Asks for the stream on a raw socket and never reads the answer (paused once its first bytes came). */
function silentStream(on: Api, eventId: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { port } = new URL(on.base);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1' }, () =>
      socket.write(`GET /v1/events/${eventId}/seats/stream HTTP/1.1\r\nHost: test\r\n\r\n`),
    );
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined); // a dropped stream may reset the connection
    open.push({ close: () => socket.destroy() });
    socket.once('data', (d: Buffer) => {
      socket.pause();
      if (!d.toString('latin1').startsWith('HTTP/1.1 200')) {
        reject(new Error(`the stream was refused: ${d.toString('latin1', 0, 200)}`));
      }
      resolve({ socket, closed });
    });
  });
}

/**
 * A stream read through node:http (chunked decoding done), paused and resumed at will: while paused
 * nothing is read from the socket once its buffers are full, as with a client on a slow link.
 */
function pausableStream(on: Api, eventId: string): Promise<{ res: IncomingMessage; events: SseEvent[] }> {
  return new Promise((resolve, reject) => {
    const req = get(`${on.base}/v1/events/${eventId}/seats/stream`, (res) => {
      const events: SseEvent[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        buffer += text;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event && data) {
            events.push({ event, data: JSON.parse(data) });
          }
        }
      });
      res.on('error', () => undefined);
      open.push({ close: () => res.destroy() });
      resolve({ res, events });
    });
    req.on('error', reject);
  });
}

/** An event of `sections` sections S1.. of 26 rows R1..R26 of 500 seats: seat ids `S<s>-R<row>-<n>`. */
async function bigEvent(on: Api, sections: number): Promise<string> {
  const res = await on.call('POST', '/v1/events', {
    token: await on.token('admin-1', ['admin']),
    body: {
      name: 'Big show',
      startsAt: '2030-01-01T20:00:00Z',
      sections: Array.from({ length: sections }, (_, s) => ({
        name: `S${s + 1}`,
        category: 'standard',
        rows: Array.from({ length: 26 }, (_, r) => ({ row: `R${r + 1}`, seats: 500 })),
      })),
    },
  });
  expect(res.status).toBe(201);
  return res.body.eventId;
}

/**
 * Reads the stream through node:http at about `bytesPerSecond` (paused whenever it is ahead of that
 * budget, as a client on a slow link), until its first event (the snapshot) is complete.
 */
function slowReader(
  on: Api,
  eventId: string,
  bytesPerSecond: number,
): Promise<{ snapshot: Promise<SseEvent & { bytes: number }> }> {
  return new Promise((resolve, reject) => {
    const req = get(`${on.base}/v1/events/${eventId}/seats/stream`, (res) => {
      const started = Date.now();
      let taken = 0;
      const chunks: Buffer[] = [];
      const budget = setInterval(() => {
        if (taken < ((Date.now() - started) / 1000) * bytesPerSecond) {
          res.resume();
        }
      }, 20);
      const closed = new Promise<void>((r) => res.once('close', () => r()));
      void closed.then(() => clearInterval(budget));
      open.push({ close: () => res.destroy() });
      res.on('error', () => undefined);
      const snapshot = new Promise<SseEvent & { bytes: number }>((done, failed) => {
        res.on('data', (chunk: Buffer) => {
          taken += chunk.length;
          chunks.push(chunk);
          if (taken >= ((Date.now() - started) / 1000) * bytesPerSecond) {
            res.pause();
          }
          if (chunk.includes('\n\n')) {
            const text = Buffer.concat(chunks).toString('utf8');
            const block = text.slice(0, text.indexOf('\n\n')).split('\n');
            done({
              event: block.find((l) => l.startsWith('event: '))!.slice(7),
              data: JSON.parse(block.find((l) => l.startsWith('data: '))!.slice(6)),
              bytes: taken,
            });
          }
        });
        void closed.then(() => failed(new Error(`the stream was ended after ${taken} bytes`)));
      });
      snapshot.catch(() => undefined);
      resolve({ snapshot });
    });
    req.on('error', reject);
  });
}

function applied(events: SseEvent[]): Map<string, string> {
  const seats = new Map<string, string>();
  for (const e of events) {
    if (e.event === 'snapshot') {
      seats.clear();
      e.data.seats.forEach((s: any) => seats.set(s.seatId, s.status));
    } else if (e.event === 'changes') {
      e.data.changes.forEach((c: any) => seats.set(c.seatId, c.status));
    }
  }
  return seats;
}

async function mapNow(on: Api, eventId: string): Promise<Map<string, string>> {
  const body = (await on.call('GET', `/v1/events/${eventId}/seats`)).body;
  return new Map(body.seats.map((s: any) => [s.seatId, s.status]));
}

describe('seat-map stream limits', () => {
  let api: Api;
  let alice: string;
  beforeAll(async () => {
    api = await startApi({
      SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS: '1500',
      SEAT_MAP_MAX_STREAMS_PER_CALLER: '3',
      SEAT_MAP_HEARTBEAT_MS: '200',
    });
    alice = await api.token('alice');
  });
  afterAll(async () => {
    await api?.close();
  });
  const hold = (eventId: string, seatIds: string[]) =>
    api.call('POST', `/v1/events/${eventId}/holds`, { token: alice, body: { seatIds, ttlSeconds: 600 } });

  it('drops a client that has taken nothing for the drain timeout, and counts it', async () => {
    // 91,000 seats, a snapshot of about 7 MB: more than the socket buffers on both sides take
    const eventId = await bigEvent(api, 7);
    const dropped = await metric(api, 'seat_map_dropped_streams_total', 'reason="not_draining"');
    const before = await metric(api, 'seat_map_open_streams');
    const silent = await silentStream(api, eventId);
    await eventually(
      async () =>
        (await metric(api, 'seat_map_dropped_streams_total', 'reason="not_draining"')) === dropped + 1,
      30_000,
      'the silent client dropped and counted',
    );
    silent.socket.resume(); // reading now shows the connection was ended by the server
    await silent.closed;
    await eventually(
      async () => (await metric(api, 'seat_map_open_streams')) === before,
      5000,
      'its stream no longer counted open',
    );
  });

  it('keeps the stream of a client that reads slowly but steadily, however long its snapshot takes', async () => {
    // about 7 MB at 512 KiB/s: the snapshot takes many drain timeouts, more than the socket buffers hold
    const eventId = await bigEvent(api, 7);
    const dropped = await metric(api, 'seat_map_dropped_streams_total', 'reason="not_draining"');
    const rate = 512 * 1024;
    const slow = await slowReader(api, eventId, rate);
    const snapshot = await slow.snapshot;
    expect(snapshot.event).toBe('snapshot');
    expect(snapshot.data.seats).toHaveLength(7 * 26 * 500);
    // what makes this test mean something: at its rate the client took many drain timeouts to read it
    expect(snapshot.bytes / rate).toBeGreaterThan((4 * 1500) / 1000);
    expect(await metric(api, 'seat_map_dropped_streams_total', 'reason="not_draining"')).toBe(dropped);
  });

  it('keeps at most SEAT_MAP_MAX_STREAMS_PER_CALLER streams per caller (429, Retry-After)', async () => {
    const eventId = await createEvent(api, 1, 2);
    const mine = [await stream(api, eventId), await stream(api, eventId), await stream(api, eventId)];
    await Promise.all(mine.map((s) => s.next((e) => e.event === 'snapshot', 'the snapshot')));
    const refused = await stream(api, eventId);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ statusCode: 429, code: 'STREAM_LIMIT_EXCEEDED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // another caller (a user, by token) is counted apart from this address's anonymous streams
    const theirs = await stream(api, eventId, { authorization: `Bearer ${alice}` });
    expect(theirs.status).toBe(200);
    await mine[0].close();
    await eventually(
      async () => {
        const s = await stream(api, eventId);
        return s.status === 200;
      },
      5000,
      'a slot of this caller freed by its disconnect',
    );
  });

  it('still sends every change to a client that reads, also one that paused for a while', async () => {
    const eventId = await bigEvent(api, 2);
    const reader = await stream(api, eventId);
    await reader.next((e) => e.event === 'snapshot', 'the snapshot', 30_000);
    const slow = await pausableStream(api, eventId);
    slow.res.pause(); // before its snapshot is through: changes come while it cannot take them
    const seats: string[] = [];
    for (let row = 1; row <= 5; row++) {
      const ids = [`S1-R${row}-1`, `S2-R${row}-500`];
      expect((await hold(eventId, ids)).status).toBe(201);
      seats.push(...ids);
    }
    slow.res.resume();
    const expected = await mapNow(api, eventId);
    for (const s of [reader.events, slow.events]) {
      await eventually(
        () => seats.every((id) => applied(s).get(id) === 'HELD'),
        15_000,
        'every hold heard of',
      );
      const mine = applied(s);
      expect([...expected].filter(([id, status]) => mine.get(id) !== status)).toEqual([]);
    }
  });
});

describe('seat-map stream memory budget', () => {
  it('refuses a stream past SEAT_MAP_STREAM_MEMORY_MAX_BYTES with 503 TOO_MANY_STREAMS', async () => {
    // 100,000 bytes: one stream of a small event (charged 64 KiB and a byte per seat), not two
    const small = await startApi({ SEAT_MAP_STREAM_MEMORY_MAX_BYTES: '100000' });
    try {
      const eventId = await createEvent(small, 1, 2);
      const first = await stream(small, eventId);
      await first.next((e) => e.event === 'snapshot', 'the snapshot');
      const refused = await stream(small, eventId);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'TOO_MANY_STREAMS' });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await metric(small, 'seat_map_refused_streams_total', 'reason="memory"')).toBe(1);
      await first.close();
      await eventually(
        async () => (await stream(small, eventId)).status === 200,
        5000,
        'the budget freed by the disconnect',
      );
    } finally {
      await Promise.all(open.splice(0).map((s) => s.close()));
      await small.close();
    }
  });
});
