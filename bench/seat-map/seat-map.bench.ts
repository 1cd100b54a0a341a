/**
 * Seat-map benchmark (issue 11), the seat API as a child process on a private Redis:
 *   1. Redis time per seat-map read of a 100,000-seat event with 90 % of its seats held: the microseconds
 *      Redis spent on all commands during each read (INFO commandstats, background subtracted), over 100
 *      reads with holds changing in between (target <= 5 ms on average); and the full-scan script the
 *      map used before (SEAT_STATES, HGETALL) on the same data, for comparison.
 *   2. Holds on another event: p99 without readers, and while 20 clients read the big map in a loop
 *      (whole bodies, and revalidating with If-None-Match); the ratio is the figure.
 * Run: npm run bench:seat-map   (BENCH_SECONDS per load run, default 5; BENCH_MAP_SEATS, default 100000)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import * as path from 'node:path';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { seatStates } from '../../test/support/hold-store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { load, LoadResult } from '../support/load';
import { table, writeReport } from '../support/report';
import { BENCH_SECRET, BenchService, seatId, signBenchToken, startService } from '../support/service';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const MAP_SEATS = Number(process.env.BENCH_MAP_SEATS ?? 100_000);
const READS = 100;
const READERS = 20;
const HOLD_CONNECTIONS = 16;

const config = loadConfig({ AUTH_JWT_SECRET: BENCH_SECRET, REDIS_URL: 'redis://unused' });

/**
 * Commands the service sends only from inside its Lua scripts while the map is read: their time is
 * already in the EVALSHA that ran them (commandstats counts both), so they are left out of the sum.
 */
const INSIDE_SCRIPTS = new Set([
  'time',
  'hget',
  'hgetall',
  'hmget',
  'hset',
  'xrange',
  'incrby',
  'pexpire',
  'info',
]);

/** Microseconds Redis spent on the commands it was sent (INFO commandstats), so far. */
async function redisUsec(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let usec = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=\d+,usec=(\d+)/gm)) {
    usec += INSIDE_SCRIPTS.has(m[1]) ? 0 : Number(m[2]);
  }
  return usec;
}

/** CPU time of the Redis process so far (INFO cpu), in microseconds: a cross-check with coarser ticks. */
async function redisCpuUsec(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
}

/** An event of `seats` seats in sections of at most 250 rows of 100: ids `<section>-R<row>-<n>`. */
async function createBigEvent(svc: BenchService, seats: number): Promise<{ eventId: string; ids: string[] }> {
  const rows = Math.ceil(seats / 100);
  const sections = Array.from({ length: Math.ceil(rows / 250) }, (_, s) => ({
    name: `S${s + 1}`,
    category: s === 0 ? 'premium' : 'standard',
    rows: Array.from({ length: Math.min(250, rows - s * 250) }, (_, r) => ({ row: `R${r + 1}`, seats: 100 })),
  }));
  const res = await fetch(`${svc.base}/v1/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await signBenchToken('bench-admin', ['admin'])}`,
    },
    body: JSON.stringify({ name: 'Big show', startsAt: '2030-01-01T20:00:00Z', sections }),
  });
  if (res.status !== 201) {
    throw new Error(`create event: ${res.status} ${await res.text()}`);
  }
  const ids = sections.flatMap((s) =>
    s.rows.flatMap((r) => Array.from({ length: 100 }, (_, n) => `${s.name}-${r.row}-${n + 1}`)),
  );
  return { eventId: ((await res.json()) as { eventId: string }).eventId, ids };
}

/** Holds `share` of the seats in holds of 4, straight through the store (what a sale would have done). */
async function holdMost(store: HoldStore, eventId: string, ids: string[], share: number): Promise<number> {
  const seats = ids.slice(0, Math.floor(ids.length * share));
  for (let i = 0; i < seats.length; i += 4000) {
    const calls: Promise<unknown>[] = [];
    for (let k = i; k < Math.min(seats.length, i + 4000); k += 4) {
      calls.push(
        store.createHold({
          eventId,
          holdId: HoldIds.generate(eventId),
          userId: `filler-${k}`,
          seatIds: seats.slice(k, k + 4),
          ttlMs: 3_600_000,
          maxLifetimeMs: 3_600_000,
          maxSeatsPerUser: 10,
          fencingToken: 0,
        }),
      );
    }
    await Promise.all(calls);
  }
  return seats.length;
}

/** GET a URL to the end; the status and the ETag. */
function get(
  agent: Agent,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; etag?: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      let bytes = 0;
      res.on('data', (c: Buffer) => (bytes += c.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (usec: number) => (usec / 1000).toFixed(2);

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const svc = await startService('seatmap', redis.url, {
    SWEEPER_ENABLED: 'false', // the holds here outlive the run; a quiet Redis between reads
    OUTBOX_RELAY_INTERVAL_MS: '60000',
    RATE_LIMIT_STREAM_OPENS_PER_WINDOW: '1000000',
  });
  const client = new Redis(redis.url, { keyPrefix: 'svc:' });
  const store = new HoldStore(
    client,
    config,
    new DistributedLockService({ redis: client, keyPrefix: 'lock:' }),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const sections: string[] = [];
  try {
    const big = await createBigEvent(svc, MAP_SEATS);
    const held = await holdMost(store, big.eventId, big.ids, 0.9);
    const mapUrl = `${svc.base}/v1/events/${big.eventId}/seats`;
    console.log(`event of ${big.ids.length} seats, ${held} held`);

    // background: what Redis does per ms while nobody reads (rate-limit syncs, relay, health)
    const bg0 = await redisUsec(redis.client);
    const bgCpu0 = await redisCpuUsec(redis.client);
    const bgStart = Date.now();
    await new Promise((r) => setTimeout(r, 3000));
    const bgPerMs = ((await redisUsec(redis.client)) - bg0) / (Date.now() - bgStart);
    const bgCpuPerMs = ((await redisCpuUsec(redis.client)) - bgCpu0) / (Date.now() - bgStart);

    // 1. Redis time per read, holds changing between reads
    const perRead: number[] = [];
    const wallMs: number[] = [];
    let readCpu = 0;
    let free = big.ids.length - 1;
    for (let i = 0; i < READS; i++) {
      for (let k = 0; k < 5; k++) {
        const r = await store.createHold({
          eventId: big.eventId,
          holdId: HoldIds.generate(big.eventId),
          userId: `changer-${i}-${k}`,
          seatIds: [big.ids[free--]],
          ttlMs: 3_600_000,
          maxLifetimeMs: 3_600_000,
          maxSeatsPerUser: 10,
          fencingToken: 0,
        });
        if (r.ok && k % 2 === 0) {
          await store.releaseHold({ holdId: r.hold.holdId, userId: r.hold.userId, fencingToken: 0 });
        }
      }
      const before = await redisUsec(redis.client);
      const cpu0 = await redisCpuUsec(redis.client);
      const t0 = Date.now();
      const res = await get(agent, mapUrl);
      const took = Date.now() - t0;
      readCpu += (await redisCpuUsec(redis.client)) - cpu0;
      const after = await redisUsec(redis.client);
      if (res.status !== 200) {
        throw new Error(`seat map answered ${res.status}`);
      }
      wallMs.push(took);
      perRead.push(Math.max(0, after - before - bgPerMs * took));
    }
    const revalidated: number[] = [];
    const { etag } = await get(agent, mapUrl);
    for (let i = 0; i < 20; i++) {
      const before = await redisUsec(redis.client);
      const res = await get(agent, mapUrl, { 'if-none-match': etag! });
      const after = await redisUsec(redis.client);
      if (res.status !== 304) {
        throw new Error(`revalidation answered ${res.status}`);
      }
      revalidated.push(after - before);
    }
    // the full-scan script the map used before this change, on the same data
    const scans: number[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await redisUsec(redis.client);
      await seatStates(store, big.eventId);
      scans.push((await redisUsec(redis.client)) - before);
    }
    const metrics = await (await fetch(`${svc.base}/metrics`)).text();
    const cacheMiB =
      Number(/^memory_cache_bytes\{cache="seat_map"\} (\d+)/m.exec(metrics)?.[1] ?? 0) / 2 ** 20;
    const warm = perRead.slice(1);
    const readRows = [
      ['first read (cold snapshot: HSCAN build + log)', ms(perRead[0]), `${wallMs[0]} ms`],
      [`mean over all ${READS} reads`, ms(mean(perRead)), `${Math.round(mean(wallMs))} ms`],
      [
        `warm reads: mean / p99 / max`,
        `${ms(mean(warm))} / ${ms(pct(warm, 99))} / ${ms(Math.max(...warm))}`,
        `${Math.round(mean(wallMs.slice(1)))} ms`,
      ],
      ['If-None-Match revalidation (304): mean', ms(mean(revalidated)), ''],
      ['before: full-scan script (HGETALL + Lua loop), one read', ms(mean(scans)), ''],
      [
        `cross-check: Redis process CPU (INFO cpu) per read, mean over all ${READS}`,
        ms(Math.max(0, readCpu - bgCpuPerMs * wallMs.reduce((a, b) => a + b, 0)) / READS),
        '',
      ],
    ];
    const target = mean(perRead) <= 5000 ? 'met' : 'NOT met';
    sections.push(
      `## Redis time per seat-map read (${big.ids.length} seats, ${held} held; 5 holds/releases between reads)`,
      '',
      table(['read', 'Redis ms per read', 'HTTP wall (body read)'], readRows),
      '',
      `Target: <= 5 ms of Redis time per read on average over ${READS} reads: **${target}** (${ms(mean(perRead))} ms; background ${bgPerMs.toFixed(1)} µs/ms subtracted). Redis time is the commandstats usec of the commands the service sent (EVALSHA includes what its script ran; HSCAN is sent as is).`,
      '',
      `The service's seat-map snapshots then held ${cacheMiB.toFixed(1)} MiB (estimate, memory_cache_bytes{cache="seat_map"}; this event, its rendered map included).`,
      '',
    );
    console.log(sections.join('\n'));

    // 2. holds on another event, without and with readers of the big map
    const tokens = await Promise.all(Array.from({ length: 2000 }, (_, u) => svc.token(u)));
    const holdRun = async (): Promise<LoadResult> => {
      const eventId = await svc.createEvent(20_000);
      await fetch(`${svc.base}/v1/events/${eventId}/seats`); // warm: catalogue cached, as in a sale
      let n = 0;
      return load({
        url: svc.base,
        connections: HOLD_CONNECTIONS,
        durationSeconds: SECONDS,
        next: () => {
          const i = n++;
          return {
            method: 'POST',
            path: `/v1/events/${eventId}/holds`,
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${tokens[i % tokens.length]}`,
            },
            body: JSON.stringify({ seatIds: [seatId((i * 7919) % 20_000)] }),
          };
        },
      });
    };
    const withReaders = async (revalidate: boolean) => {
      const readers = spawn(
        process.execPath,
        ['-r', '@swc-node/register', path.join(__dirname, 'map-readers.ts')],
        {
          env: {
            ...process.env,
            MAP_URL: mapUrl,
            READERS: String(READERS),
            REVALIDATE: revalidate ? '1' : '0',
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      readers.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise((r) => readers.once('exit', r));
      await new Promise((r) => setTimeout(r, 2000)); // readers up, past their first (whole) reads
      const usec0 = await redisUsec(redis.client);
      const result = await holdRun();
      const redisMs = ((await redisUsec(redis.client)) - usec0) / 1000;
      readers.kill('SIGTERM');
      await exited;
      const { reads, bytes, ms: readMs } = JSON.parse(out) as { reads: number; bytes: number; ms: number };
      return { result, reads, bytes, readSeconds: readMs / 1000, redisMs };
    };
    const plain = async () => {
      const usec0 = await redisUsec(redis.client);
      const result = await holdRun();
      return { result, redisMs: ((await redisUsec(redis.client)) - usec0) / 1000 };
    };
    await holdRun(); // warm-up (not reported): JIT, connection pools, script cache
    const runs: {
      name: string;
      result: LoadResult;
      reads?: number;
      bytes?: number;
      readSeconds?: number;
      redisMs: number;
    }[] = [];
    runs.push({ name: 'no readers', ...(await plain()) });
    runs.push({ name: `${READERS} readers, whole map each time`, ...(await withReaders(false)) });
    runs.push({ name: `${READERS} readers, If-None-Match`, ...(await withReaders(true)) });
    runs.push({ name: 'no readers (again)', ...(await plain()) });
    const baseP99 = Math.max(1, Math.min(runs[0].result.latencyMs.p99, runs[3].result.latencyMs.p99));
    const holdRows = runs.map((r) => [
      r.name,
      Math.round(r.result.requests / r.result.seconds),
      r.result.latencyMs.p50,
      r.result.latencyMs.p99,
      (r.result.latencyMs.p99 / baseP99).toFixed(2),
      r.reads === undefined
        ? ''
        : `${Math.round(r.reads / r.readSeconds!)}/s, ${Math.round(r.bytes! / r.readSeconds! / 2 ** 20)} MiB/s`,
      `${Math.round(r.redisMs / r.result.seconds)} ms/s`,
      JSON.stringify(r.result.statuses),
    ]);
    sections.push(
      `## Holds on another event while ${READERS} clients read the ${big.ids.length}-seat map in a loop`,
      '',
      `${HOLD_CONNECTIONS} connections holding one seat each on a 20,000-seat event for ${SECONDS} s per run, after a warm-up run; the readers run in a process of their own (bench/seat-map/map-readers.ts), started 2 s before the run, and read whole bodies (or 304s); map reads are counted from their start. Redis busy = commandstats time of every command sent, per second of the run (readers and holds together). The ratio's base is the better of the two no-reader runs.`,
      '',
      table(
        ['run', 'holds/s', 'p50 ms', 'p99 ms', 'p99 / no-reader p99', 'map reads', 'Redis busy', 'statuses'],
        holdRows,
      ),
      '',
    );
    console.log(sections.slice(-6).join('\n'));
    const file = writeReport('seat-map', 'Seat-map benchmark', 'npm run bench:seat-map', sections);
    console.log(`report: ${path.relative(process.cwd(), file)}`);
  } finally {
    agent.destroy();
    client.disconnect();
    await svc.stop();
    await redis.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
