/**
 * Seat-map stream memory: what clients that open the live stream and never read cost the seat API.
 * The service runs as a child process on a private Redis; one event of BENCH_MAP_SEATS (100,000) seats.
 *   - RSS of the service (/proc/<pid>/status VmRSS) once the map is warm (one GET, one stream read to its
 *     end), then while BENCH_STREAMS (1,000) raw sockets open the stream and never read a byte (paused
 *     right after the request: the kernel's buffers fill, then the server's), with holds changing the
 *     map all along (so the streams open at many versions); the peak and the figure at the end.
 *   - a reading client (an EventSource-like parser) open all along: it must have heard every change,
 *     its seats applied in order equal to the map GET answers at the end.
 * The per-caller cap and the opens-per-minute limit are lifted (all sockets come from one address), and
 * the drain timeout is longer than the run (BENCH_DRAIN_TIMEOUT_MS, default 600,000), so every stream is
 * accepted and open at once: the memory bound of a stream, not a refusal or a drop, is measured; the
 * streams refused anyway (the instance's stream memory budget) and dropped are reported.
 * Target: at most 200 MB added for 1,000 non-reading streams; the reading client misses nothing.
 * Run: npm run bench:stream-memory   (BENCH_STREAMS=1000, BENCH_MAP_SEATS=100000, BENCH_HOLD_SECONDS=20,
 *      BENCH_DRAIN_TIMEOUT_MS=600000)
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { openSse, SseEvent } from '../../test/support/sse';
import { startPrivateRedis } from '../../test/support/private-redis';
import { table, writeReport } from '../support/report';
import { createBigEvent } from './big-event';
import { startService } from '../support/service';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const MAP_SEATS = Number(process.env.BENCH_MAP_SEATS ?? 100_000);
const HOLD_SECONDS = Number(process.env.BENCH_HOLD_SECONDS ?? 20);
/** Stops the run before the machine runs out: the code before the bound pinned ~8 MB per stream. */
const RSS_ABORT_MB = Number(process.env.BENCH_RSS_ABORT_MB ?? 4096);
/** The service's drain timeout: longer than the run, so the figure is of every stream open at once. */
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_DRAIN_TIMEOUT_MS ?? 600_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

/** A socket that asks for the stream and then reads nothing (its status line is peeked, then paused). */
function silentStream(port: number, path: string): Promise<{ socket: Socket; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n`);
    });
    socket.once('error', reject);
    socket.once('data', (d: Buffer) => {
      socket.pause(); // never read again: what the kernel buffers is all this client takes
      socket.on('error', () => undefined); // the server may drop it: that is the point
      resolve({ socket, status: Number(d.toString('latin1', 9, 12)) });
    });
  });
}

function applied(events: SseEvent[]): Map<string, string> {
  const seats = new Map<string, string>();
  for (const e of events) {
    if (e.event === 'snapshot') {
      seats.clear();
      e.data.seats.forEach((s: { seatId: string; status: string }) => seats.set(s.seatId, s.status));
    } else if (e.event === 'changes') {
      e.data.changes.forEach((c: { seatId: string; status: string }) => seats.set(c.seatId, c.status));
    }
  }
  return seats;
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const svc = await startService('streammem', redis.url, {
    RATE_LIMIT_STREAM_OPENS_PER_WINDOW: '1000000',
    SEAT_MAP_MAX_STREAMS_PER_CALLER: String(STREAMS + 10),
    // by default none is dropped before the end, so all of them are open at once when RSS is read
    SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS),
  });
  const sockets: Socket[] = [];
  try {
    const pid = svc.child.proc.pid!;
    const port = Number(new URL(svc.base).port);
    const { eventId, ids } = await createBigEvent(svc, MAP_SEATS);
    const streamPath = `/v1/events/${eventId}/seats/stream`;
    // warm: the snapshot, both seat-list templates and one whole stream snapshot read to its end
    await (await fetch(`${svc.base}/v1/events/${eventId}/seats`)).arrayBuffer();
    const reader = await openSse(`${svc.base}${streamPath}`);
    await reader.next((e) => e.event === 'snapshot', 'the reader snapshot', 120_000);
    await sleep(2000);
    global.gc?.();
    const before = rssMb(pid);

    let holding = true;
    const held: string[] = [];
    const holdLoop = (async () => {
      for (let i = 0; holding; i++) {
        const token = await svc.token(i);
        const res = await fetch(`${svc.base}/v1/events/${eventId}/holds`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ seatIds: [ids[2 * i], ids[2 * i + 1]], ttlSeconds: 600 }),
        });
        if (res.status === 201) {
          held.push(ids[2 * i], ids[2 * i + 1]);
        }
        await sleep(100);
      }
    })();

    let peak = before;
    let accepted = 0;
    const refused = new Map<number, number>();
    for (let i = 0; i < STREAMS; i++) {
      const { socket, status } = await silentStream(port, streamPath);
      sockets.push(socket);
      if (status === 200) {
        accepted++;
      } else {
        refused.set(status, (refused.get(status) ?? 0) + 1);
      }
      if (i % 50 === 0) {
        peak = Math.max(peak, rssMb(pid));
        if (peak > RSS_ABORT_MB) {
          console.log(`stopped after ${i + 1} streams: RSS ${peak.toFixed(0)} MB`);
          break;
        }
      }
    }
    const opened = sockets.length;
    const afterOpen = rssMb(pid);
    const watchUntil = Date.now() + HOLD_SECONDS * 1000;
    while (Date.now() < watchUntil) {
      peak = Math.max(peak, rssMb(pid));
      await sleep(250);
    }
    holding = false;
    await holdLoop;
    const after = rssMb(pid);
    const stillOpen = await metric(svc.base, 'seat_map_open_streams');
    const dropped = await metric(svc.base, 'seat_map_dropped_streams_total');

    // the reader heard every change: applied in order, its map is the one GET answers now
    const expected = new Map<string, string>();
    await sleep(1000); // one batch (250 ms) and its write
    const map = (await (await fetch(`${svc.base}/v1/events/${eventId}/seats`)).json()) as {
      seats: { seatId: string; status: string }[];
    };
    map.seats.forEach((s) => expected.set(s.seatId, s.status));
    const mine = applied(reader.events);
    let wrong = 0;
    for (const [id, status] of expected) {
      if (mine.get(id) !== status) {
        wrong++;
      }
    }
    const heldSeen = held.filter((id) =>
      reader.events.some(
        (e) =>
          e.event === 'changes' && e.data.changes.some((c: any) => c.seatId === id && c.status === 'HELD'),
      ),
    ).length;
    await reader.close();

    const added = peak - before;
    const rows: (string | number)[][] = [
      ['non-reading streams opened', opened],
      ['accepted (200)', accepted],
      ['refused', [...refused].map(([s, n]) => `${n} × ${s}`).join(', ') || '0'],
      ['RSS before (MB)', before.toFixed(0)],
      ['RSS after opening (MB)', afterOpen.toFixed(0)],
      ['RSS peak (MB)', peak.toFixed(0)],
      [`RSS ${HOLD_SECONDS} s later (MB)`, after.toFixed(0)],
      ['added at peak (MB)', added.toFixed(0)],
      ['added per accepted stream (KB)', accepted ? ((added * 1024) / accepted).toFixed(1) : '-'],
      ['streams still open at the end', stillOpen - 0],
      ['dropped for not draining (metric)', dropped],
      ['holds made meanwhile (seats)', held.length],
      ['reader: seats HELD it heard of', `${heldSeen} of ${held.length}`],
      ['reader: seats differing from GET at the end', wrong],
    ];
    const ok = added <= 200 && wrong === 0 && heldSeen === held.length;
    const report = table(['figure', 'value'], rows);
    console.log(report);
    console.log(ok ? 'target met' : 'TARGET NOT MET (at most 200 MB added, reader misses nothing)');
    writeReport('stream-memory', 'Seat-map stream memory', 'npm run bench:stream-memory', [
      `${STREAMS} non-reading streams on a ${MAP_SEATS}-seat event, holds every 100 ms meanwhile`,
      '',
      report,
      '',
      ok ? 'target met' : 'TARGET NOT MET',
    ]);
  } finally {
    sockets.forEach((s) => s.destroy());
    await svc.stop();
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
