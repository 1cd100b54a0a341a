/**
 * What one instance lets its seat-map streams cost, on a real seat API process (its own entry point, in a
 * child process) and real SSE connections over TCP:
 *   - with SEAT_MAP_MAX_STREAMS unset it keeps 10,000 streams open, as README.md and docs/operations.md
 *     say, and refuses the next with 503 TOO_MANY_STREAMS (Retry-After) until one closes; a lowered
 *     SEAT_MAP_MAX_STREAMS is kept the same way;
 *   - streams of a 100,000-seat map whose clients never read fill SEAT_MAP_STREAM_MEMORY_MAX_BYTES and
 *     no more (past it, 503 TOO_MANY_STREAMS), and the process's resident memory grows by less than that
 *     budget while they stay open and the map keeps changing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { eventually } from '../support/eventually';
import { freePort } from '../support/private-redis';
import { spawnApi, SpawnedApi } from '../support/spawn-api';

jest.setTimeout(600_000);

const MiB = 1024 * 1024;
/** Streams asked for at once while filling an instance: enough to be quick, few enough for 2 cores. */
const OPEN_AT_ONCE = 200;

const sockets: Socket[] = [];
let dir: string;
let api: SpawnedApi | undefined;
let base: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'seat-streams-')); // no .env: the process has the defaults
});
afterEach(async () => {
  closeAll();
  await api?.stop();
  api = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function closeAll() {
  for (const s of sockets.splice(0)) {
    s.destroy();
  }
}

/** The seat API process, one caller (this address) allowed any number of streams, as if many callers. */
async function start(env: Record<string, string | undefined>): Promise<void> {
  const port = await freePort();
  api = spawnApi(dir, {
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    SEAT_MAP_MAX_STREAMS_PER_CALLER: '1000000',
    SEAT_MAP_MAX_STREAMS: undefined,
    SEAT_MAP_STREAM_MEMORY_MAX_BYTES: undefined,
    ...env,
  });
  await api.waitUntilUp(port);
  base = `http://127.0.0.1:${port}`;
}

async function call(method: string, path: string, body?: unknown, sub?: string, roles: string[] = []) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (sub) {
    const jwt = await new SignJWT({ roles })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(process.env.AUTH_JWT_SECRET));
    headers.authorization = `Bearer ${jwt}`;
  }
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** An event of `sections` sections of `rows` rows of `perRow` seats: seat ids `S<s>-R<row>-<n>`. */
async function createEvent(sections: number, rows: number, perRow: number): Promise<string> {
  const r = await call(
    'POST',
    '/v1/events',
    {
      name: 'Stream cap show',
      startsAt: '2030-01-01T20:00:00Z',
      sections: Array.from({ length: sections }, (_, s) => ({
        name: `S${s + 1}`,
        category: 'standard',
        rows: Array.from({ length: rows }, (_, i) => ({ row: `R${i + 1}`, seats: perRow })),
      })),
    },
    'admin-1',
    ['admin'],
  );
  expect(r.status).toBe(201);
  return r.body.eventId;
}

/** Sum of a metric's samples with these labels (every label set when none). */
async function metric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{${labels}`) || (!labels && l.startsWith(`${name} `)))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/**
 * Opens a stream on a raw socket and answers its status once the first bytes came. A `reading` client
 * takes everything; otherwise it never reads again (the socket is paused), like a client gone silent.
 */
function openStream(eventId: string, reading: boolean): Promise<number> {
  const { port } = new URL(base);
  return new Promise((done, fail) => {
    const socket = connect({ port: Number(port), host: '127.0.0.1' }, () =>
      socket.write(`GET /v1/events/${eventId}/seats/stream HTTP/1.1\r\nHost: test\r\n\r\n`),
    );
    sockets.push(socket);
    socket.on('error', fail);
    socket.once('data', (d: Buffer) => {
      if (reading) {
        socket.on('data', () => undefined);
      } else {
        socket.pause();
      }
      done(Number(d.toString('latin1', 9, 12)));
    });
  });
}

/** Opens `n` streams, OPEN_AT_ONCE at a time, and answers how many the instance accepted. */
async function openStreams(eventId: string, n: number, reading: boolean): Promise<number> {
  let accepted = 0;
  for (let i = 0; i < n; i += OPEN_AT_ONCE) {
    const batch = Math.min(OPEN_AT_ONCE, n - i);
    const statuses = await Promise.all(Array.from({ length: batch }, () => openStream(eventId, reading)));
    accepted += statuses.filter((s) => s === 200).length;
  }
  return accepted;
}

/** The refusal of one more stream, in the error envelope. */
async function refused(eventId: string) {
  const r = await fetch(`${base}/v1/events/${eventId}/seats/stream`);
  return {
    status: r.status,
    code: ((await r.json()) as { code: string }).code,
    retryAfter: Number(r.headers.get('retry-after')),
  };
}

/** The child process's resident set, in bytes (Linux /proc). */
function rss(): number {
  const status = readFileSync(`/proc/${api!.child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

it('keeps 10,000 streams by default, as the README says, and refuses the next with 503 TOO_MANY_STREAMS', async () => {
  const root = resolve(__dirname, '../..');
  expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('`SEAT_MAP_MAX_STREAMS` (10,000)');
  expect(readFileSync(join(root, 'docs/operations.md'), 'utf8')).toContain('`SEAT_MAP_MAX_STREAMS` (10,000)');

  await start({});
  const eventId = await createEvent(1, 1, 2); // 10,000 streams charged 64 KiB each: within the 1 GiB budget
  expect(await openStreams(eventId, 10_000, true)).toBe(10_000);
  expect(await metric('seat_map_open_streams')).toBe(10_000);
  expect(await refused(eventId)).toEqual({ status: 503, code: 'TOO_MANY_STREAMS', retryAfter: 5 });
  expect(await metric('seat_map_refused_streams_total', 'reason="max_streams"')).toBe(1);
  expect(await metric('seat_map_refused_streams_total', 'reason="memory"')).toBe(0);

  sockets.shift()!.destroy(); // one client leaves: its place is free again
  await eventually(async () => (await metric('seat_map_open_streams')) === 9_999, 10_000, 'a stream closed');
  expect(await openStreams(eventId, 1, true)).toBe(1);
  expect((await refused(eventId)).code).toBe('TOO_MANY_STREAMS');
});

it('a lowered SEAT_MAP_MAX_STREAMS is kept the same way', async () => {
  await start({ SEAT_MAP_MAX_STREAMS: '300' });
  const eventId = await createEvent(1, 1, 2);
  expect(await openStreams(eventId, 300, true)).toBe(300);
  expect(await refused(eventId)).toEqual({ status: 503, code: 'TOO_MANY_STREAMS', retryAfter: 5 });
  expect(await metric('seat_map_refused_streams_total', 'reason="max_streams"')).toBe(1);
});

it('streams whose clients never read stay within the memory budget, in what the process holds too', async () => {
  const budget = 128 * MiB;
  await start({
    SEAT_MAP_STREAM_MEMORY_MAX_BYTES: String(budget),
    // longer than the test: the clients that stop reading stay open while their memory is measured
    SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS: '600000',
    SEAT_MAP_HEARTBEAT_MS: '200',
  });
  const eventId = await createEvent(2, 100, 500); // 100,000 seats: a snapshot of several MB
  // one client reads a whole snapshot first, so the map and its frame are built before the baseline
  expect(await openStreams(eventId, 1, true)).toBe(1);
  closeAll();
  await eventually(async () => (await metric('seat_map_open_streams')) === 0, 10_000, 'the reader gone');
  const before = rss();

  // each stream is charged 64 KiB plus a byte a seat: the budget takes this many, and not one more
  const fits = Math.floor(budget / (64 * 1024 + 100_000));
  expect(await openStreams(eventId, fits + 1, false)).toBe(fits);
  expect(await metric('seat_map_refused_streams_total', 'reason="memory"')).toBe(1);
  expect(await refused(eventId)).toEqual({ status: 503, code: 'TOO_MANY_STREAMS', retryAfter: 5 });

  // the map keeps changing while nobody reads: the silent clients are owed changes, not sent them
  let peak = rss();
  for (let row = 1; row <= 40; row++) {
    const hold = await call(
      'POST',
      `/v1/events/${eventId}/holds`,
      { seatIds: [`S1-R${row}-1`, `S1-R${row}-2`] },
      `customer-${row}`,
    );
    expect(hold.status).toBe(201);
    peak = Math.max(peak, rss());
  }
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 250)); // heartbeats go on meanwhile
    peak = Math.max(peak, rss());
  }
  expect(await metric('seat_map_open_streams')).toBe(fits); // still open, none dropped
  expect(peak - before).toBeLessThan(budget);
});
