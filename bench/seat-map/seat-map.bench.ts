/**
 * Seat-map benchmark, the seat API as a child process on a private Redis:
 *   1. Redis time per seat-map read of a 100,000-seat event with 90 % of its seats held: the microseconds
 *      Redis spent on all commands during each read (INFO commandstats, background subtracted), over 100
 *      reads with holds changing in between (target <= 5 ms on average); and the full-scan script the
 *      map used before (SEAT_STATES, HGETALL) on the same data, for comparison.
 *   2. Holds on another event: p99 without readers, and while 20 clients read the big map in a loop
 *      (whole bodies as a browser asks for them, `Accept-Encoding: gzip, deflate, br`; without that header;
 *      revalidating with If-None-Match). The figure is the p99 ratio at a fixed hold rate (open loop, half
 *      the closed-loop capacity measured first in the same run); the saturating closed-loop runs follow,
 *      labelled as such. Also: each coding's size and compression time, checked to decode to identity.
 * Run: npm run bench:seat-map   (BENCH_SECONDS per closed-loop run, default 5; BENCH_OPEN_SECONDS per
 *      fixed-rate run, default 10; BENCH_RATE_SHARE, default 0.5; BENCH_MAP_SEATS, default 100000)
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
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { processCpuMs } from '../support/cpu-time';
import { load, LoadRequest } from '../support/load';
import { createBigEvent } from './big-event';
import { openLoop } from './open-loop';
import { table, writeReport } from '../support/report';
import { BENCH_SECRET, seatId, startService } from '../support/service';

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

/** Seconds per fixed-rate run: ~2,500 holds at ~250/s, so p99 is the 25th-worst latency, not the 5th. */
const OPEN_SECONDS = Number(process.env.BENCH_OPEN_SECONDS ?? 10);
/** The fixed rate as a share of the closed-loop no-reader capacity measured in the same run. */
const RATE_SHARE = Number(process.env.BENCH_RATE_SHARE ?? 0.5);
/** "Holds keep their p99": at most this ratio of p99 with readers to p99 without, at the fixed rate. */
const KEEPS = 1.5;
/** How often the big map changes in the run that makes it change (a one-seat hold each time). */
const CHANGES_PER_SECOND = 10;

/** One load run's figures, open or closed loop (the closed one has no p90, max or send lag). */
interface HoldRun {
  requests: number;
  seconds: number;
  statuses: Record<number, number>;
  latencyMs: { p50: number; p99: number; p90?: number; max?: number };
  sendLagMs?: { p99: number; max: number };
}

interface ReaderSetup {
  acceptEncoding?: string;
  revalidate?: boolean;
  /** the big map changes this many times a second meanwhile */
  changesPerSecond?: number;
  /** each reader starts a request at most every this many ms (map-readers.ts PACE_MS) */
  paceMs?: number;
}

interface ReadStats {
  reads: number;
  bytes: number;
  ms: number;
  encodings: Record<string, number>;
  statuses: Record<string, number>;
}

interface Row {
  name: string;
  kind: 'closed' | 'open';
  result: HoldRun;
  redisMs: number;
  serviceCpuMs: number;
  readersCpuMs?: number;
  reads?: ReadStats;
  /** the service's own counters over the run: seat-map 200s per coding, compressions per coding/outcome */
  served: Record<string, number>;
}

/** The readers' process (map-readers.ts); `stop` ends it and gives what it read. */
function startReaders(mapUrl: string, setup: ReaderSetup): { pid: number; stop(): Promise<ReadStats> } {
  const proc = spawn(process.execPath, ['-r', '@swc-node/register', path.join(__dirname, 'map-readers.ts')], {
    env: {
      ...process.env,
      MAP_URL: mapUrl,
      READERS: String(READERS),
      REVALIDATE: setup.revalidate ? '1' : '0',
      ...(setup.acceptEncoding ? { ACCEPT_ENCODING: setup.acceptEncoding } : {}),
      PACE_MS: String(setup.paceMs ?? 0),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise((r) => proc.once('exit', r));
  return {
    pid: proc.pid!,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
      return JSON.parse(out) as ReadStats;
    },
  };
}

/** seat_map_bodies_total and seat_map_compressions_total from the service's /metrics, by label values. */
async function serviceMetrics(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^seat_map_bodies_total\{encoding="(\w+)"\} (\d+)/gm)) {
    out[m[1]] = Number(m[2]);
  }
  for (const m of text.matchAll(/^seat_map_compressions_total\{encoding="(\w+)",outcome="(\w+)"\} (\d+)/gm)) {
    out[`${m[1]} compressions ${m[2]}`] = Number(m[3]);
  }
  for (const m of text.matchAll(
    /^seat_map_compression_seconds_(sum|count)\{encoding="(\w+)"\} ([\d.e+-]+)/gm,
  )) {
    out[`${m[2]} seconds ${m[1]}`] = Number(m[3]);
  }
  return out;
}

const diffMetrics = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(b)
      .map(([k, v]) => [k, v - (a[k] ?? 0)] as const)
      .filter(([, v]) => v > 0),
  );

/** The columns rowCells fills: the open-loop rows also have p90 and max. */
function headerOf(open: boolean): string[] {
  return [
    'run',
    'holds/s',
    'p50 ms',
    ...(open ? ['p90 ms'] : []),
    'p99 ms',
    ...(open ? ['max ms'] : []),
    'p99 / no-reader p99',
    'map reads',
    'map answers',
    'service CPU',
    'readers CPU',
    'Redis busy',
    'statuses',
  ];
}

function rowCells(r: Row, base: number, open: boolean): (string | number)[] {
  const l = r.result.latencyMs;
  const perSecond = (ms: number | undefined) =>
    ms === undefined ? '' : `${Math.round(ms / r.result.seconds)} ms/s`;
  const answers = ['br', 'gzip', 'identity']
    .filter((e) => r.served[e])
    .map((e) => `${e} ${r.served[e]}`)
    .join(', ');
  const compressions = Object.entries(r.served)
    .filter(([k]) => k.includes('compressions'))
    .map(([k, v]) => `${v} ${k.replace(' compressions ', ' ')}`)
    .join(', ');
  return [
    r.name,
    Math.round(r.result.requests / r.result.seconds),
    l.p50,
    ...(open ? [l.p90 ?? ''] : []),
    l.p99,
    ...(open ? [l.max ?? ''] : []),
    (l.p99 / base).toFixed(2),
    r.reads === undefined
      ? ''
      : `${Math.round(r.reads.reads / (r.reads.ms / 1000))}/s, ${(r.reads.bytes / (r.reads.ms / 1000) / 2 ** 20).toFixed(1)} MiB/s`,
    [answers, compressions && `(compressed: ${compressions})`].filter(Boolean).join(' '),
    perSecond(r.serviceCpuMs),
    perSecond(r.readersCpuMs),
    perSecond(r.redisMs),
    JSON.stringify(r.result.statuses),
  ];
}

/** GET a URL; status, headers and the body as received. */
function getRaw(
  agent: Agent,
  url: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
}> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          ms: Date.now() - t0,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The map's sizes per coding, and a check that what browsers get decodes to the identity body: the
 * first compressed read of a version waits for its compression (the time is the service's histogram).
 */
async function checkEncodings(agent: Agent, mapUrl: string): Promise<string[]> {
  const base = mapUrl.slice(0, mapUrl.indexOf('/v1/'));
  const identity = await getRaw(agent, mapUrl);
  const rows: (string | number)[][] = [['identity', identity.body.length, '1.0', '', `${identity.ms} ms`]];
  for (const [acceptEncoding, decode] of [
    ['gzip', gunzipSync],
    ['gzip, deflate, br', brotliDecompressSync],
  ] as const) {
    const m0 = await serviceMetrics(base);
    const first = await getRaw(agent, mapUrl, { 'accept-encoding': acceptEncoding });
    const m1 = diffMetrics(m0, await serviceMetrics(base));
    const encoding = String(first.headers['content-encoding']);
    if (first.headers.etag !== identity.headers.etag || !decode(first.body).equals(identity.body)) {
      throw new Error(`the ${encoding} map does not decode to the identity map of the same version`);
    }
    const second = await getRaw(agent, mapUrl, { 'accept-encoding': acceptEncoding });
    rows.push([
      `${encoding} (Accept-Encoding: ${acceptEncoding})`,
      first.body.length,
      (identity.body.length / first.body.length).toFixed(1),
      `${((1000 * (m1[`${encoding} seconds sum`] ?? NaN)) / (m1[`${encoding} seconds count`] ?? NaN)).toFixed(0)} ms`,
      `${first.ms} ms, then ${second.ms} ms`,
    ]);
  }
  return [
    `### The map's body per content coding (version at the end of part 1; decoded and compared with identity: equal)`,
    '',
    table(
      ['coding', 'bytes', 'ratio', 'compression (once per version)', 'HTTP wall: first read, next read'],
      rows,
    ),
    '',
  ];
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
    const encodedRows = await checkEncodings(agent, mapUrl);
    const tokens = await Promise.all(Array.from({ length: 2000 }, (_, u) => svc.token(u)));
    /** Hold requests on a fresh 20,000-seat event, one seat each, every seat once. */
    const holdRequests = async (): Promise<() => LoadRequest> => {
      const eventId = await svc.createEvent(20_000);
      await fetch(`${svc.base}/v1/events/${eventId}/seats`); // warm: catalogue cached, as in a sale
      let n = 0;
      return () => {
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
      };
    };
    const closedRun = (next: () => LoadRequest): Promise<HoldRun> =>
      load({ url: svc.base, connections: HOLD_CONNECTIONS, durationSeconds: SECONDS, next });
    let rate = 0; // set from the closed-loop capacity below, before any fixed-rate run
    const openRun = (next: () => LoadRequest): Promise<HoldRun> =>
      openLoop({ url: svc.base, rate, seconds: OPEN_SECONDS, next });
    /** Changes the big map `perSecond` times a second (a one-seat hold on it, straight through the store). */
    const changeBigMap = (perSecond: number) => {
      let seat = free;
      const timer = setInterval(() => {
        void store.createHold({
          eventId: big.eventId,
          holdId: HoldIds.generate(big.eventId),
          userId: `churn-${seat}`,
          seatIds: [big.ids[seat--]],
          ttlMs: 3_600_000,
          maxLifetimeMs: 3_600_000,
          maxSeatsPerUser: 10,
          fencingToken: 0,
        });
      }, 1000 / perSecond);
      return () => {
        clearInterval(timer);
        free = seat;
      };
    };
    const measured = async (name: string, kind: 'closed' | 'open', readers?: ReaderSetup): Promise<Row> => {
      const run = kind === 'closed' ? closedRun : openRun;
      const next = await holdRequests(); // the event made and its map read before anything is counted
      const proc = readers ? startReaders(mapUrl, readers) : undefined;
      const stopChanges = readers?.changesPerSecond ? changeBigMap(readers.changesPerSecond) : undefined;
      if (proc) {
        await new Promise((r) => setTimeout(r, 2000)); // readers up, past their first reads
      }
      const metrics0 = await serviceMetrics(svc.base);
      const usec0 = await redisUsec(redis.client);
      const cpu0 = processCpuMs(svc.child.proc.pid!);
      const readersCpu0 = proc ? processCpuMs(proc.pid) : 0;
      const result = await run(next);
      const serviceCpuMs = processCpuMs(svc.child.proc.pid!) - cpu0;
      const readersCpuMs = proc ? processCpuMs(proc.pid) - readersCpu0 : undefined;
      const redisMs = ((await redisUsec(redis.client)) - usec0) / 1000;
      const metrics1 = await serviceMetrics(svc.base);
      stopChanges?.();
      const reads = proc ? await proc.stop() : undefined;
      return {
        name,
        kind,
        result,
        redisMs,
        serviceCpuMs,
        readersCpuMs,
        reads,
        served: diffMetrics(metrics0, metrics1),
      };
    };

    const BROWSER = 'gzip, deflate, br';
    const browser: ReaderSetup = { acceptEncoding: BROWSER };
    const identityReaders: ReaderSetup = {};
    const revalidating: ReaderSetup = { acceptEncoding: BROWSER, revalidate: true };
    const changing: ReaderSetup = { acceptEncoding: BROWSER, changesPerSecond: CHANGES_PER_SECOND };
    // as fast as the service's default per-client limit lets one client read (RATE_LIMIT_* defaults)
    const { windowSeconds, seatMapReadsPerWindow } = config.rateLimit;
    const atLimitMs = Math.ceil((windowSeconds * 1000) / seatMapReadsPerWindow);
    const atLimit: ReaderSetup = { acceptEncoding: BROWSER, paceMs: atLimitMs };
    await closedRun(await holdRequests()); // warm-up (not reported): JIT, connection pools, script cache
    const closed: Row[] = [];
    const open: Row[] = [];
    closed.push(await measured('no readers', 'closed'));
    const capacity = closed[0].result.requests / closed[0].result.seconds;
    rate = Math.max(10, Math.round(capacity * RATE_SHARE));
    console.log(`closed-loop capacity ${Math.round(capacity)} holds/s: fixed rate ${rate}/s`);
    open.push(await measured('no readers', 'open'));
    open.push(await measured(`${READERS} browser readers (${BROWSER}), whole map`, 'open', browser));
    open.push(
      await measured(`${READERS} readers without Accept-Encoding, whole map`, 'open', identityReaders),
    );
    open.push(await measured(`${READERS} browser readers, If-None-Match`, 'open', revalidating));
    open.push(
      await measured(
        `${READERS} browser readers, whole map, each at the default per-client limit (one read per ${atLimitMs} ms)`,
        'open',
        atLimit,
      ),
    );
    open.push(
      await measured(
        `(another case) ${READERS} browser readers, whole map, the map changing ${CHANGES_PER_SECOND}×/s`,
        'open',
        changing,
      ),
    );
    open.push(await measured('no readers (again)', 'open'));
    open.push(await measured(`${READERS} browser readers, whole map (again)`, 'open', browser));
    closed.push(await measured(`${READERS} browser readers, whole map`, 'closed', browser));
    closed.push(
      await measured(`${READERS} readers without Accept-Encoding, whole map`, 'closed', identityReaders),
    );
    closed.push(await measured(`${READERS} browser readers, If-None-Match`, 'closed', revalidating));
    closed.push(await measured('no readers (again)', 'closed'));

    const noReaders = (rows: Row[]) => rows.filter((r) => r.name.startsWith('no readers'));
    const baseOf = (rows: Row[]) =>
      Math.max(1, Math.min(...noReaders(rows).map((r) => r.result.latencyMs.p99)));
    const openBase = baseOf(open);
    const closedBase = baseOf(closed);
    // both browser-reader runs must keep it: the machine is shared, one lucky run proves nothing
    const browserRuns = [open[1], open[open.length - 1]]; // the browser-reader runs on an unchanging map
    const keeps = Math.max(...browserRuns.map((r) => r.result.latencyMs.p99)) / openBase;
    const paced = open.find((r) => r.name.includes('default per-client limit'))!;
    const pacedKeeps = paced.result.latencyMs.p99 / openBase;
    sections.push(
      `## Holds on another event while ${READERS} clients read the ${big.ids.length}-seat map in a loop`,
      '',
      `Holds of one seat each on a fresh 20,000-seat event per run. The readers run in a process of their own (bench/seat-map/map-readers.ts), started 2 s before the run, and read whole bodies (or 304s) without decoding them; "browser" readers send \`Accept-Encoding: ${BROWSER}\`. Map reads are counted from the readers' start; "map answers" are the service's own count of 200s by content coding during the run (seat_map_bodies_total). Redis busy = commandstats time of every command sent, per second of the run (readers and holds together); CPU = the service's and the readers' processes' CPU time per second of the run (2 cores = 2,000 ms/s for everyone, Redis and the load generator included).`,
      '',
      `### At a fixed rate (open loop): the latency claim`,
      '',
      `${rate} holds/s = ${Math.round(RATE_SHARE * 100)} % of the ${Math.round(capacity)} holds/s the closed loop below reached without readers in this run, for ${OPEN_SECONDS} s per run (bench/seat-map/open-loop.ts: each request is due at a fixed time and its latency counts from then, so a queue in the service shows). The ratio's base is the better of the two no-reader runs.`,
      '',
      table(
        headerOf(true),
        open.map((r) => rowCells(r, openBase, true)),
      ),
      '',
      `Target: holds keep their p99 (taken here as p99 with ${READERS} browser readers of the whole map <= ${KEEPS}x the no-reader p99, at the fixed rate): **${keeps <= KEEPS ? 'met' : 'NOT met'}** (the worse of the ${browserRuns.length} runs: ${keeps.toFixed(2)}x, p99 ${browserRuns.map((r) => `${r.result.latencyMs.p99} ms`).join(' and ')} against ${openBase} ms). The run marked "another case" is not the target's: there the big map itself changes ${CHANGES_PER_SECOND} times a second (a one-seat hold on it each time), so every version is rendered (a copy of the seat-list template with the statuses written in, on the event loop) and compressed anew (in the thread pool). Send lag of the generator (due -> sent), p99 / max per run: ${open.map((r) => `${r.result.sendLagMs?.p99} / ${r.result.sendLagMs?.max} ms`).join('; ')}.`,
      '',
      `Readers that keep the service's default per-client limit (${seatMapReadsPerWindow} reads per ${windowSeconds} s, RATE_LIMIT_SEAT_MAP_READS_PER_WINDOW; the bench raises the limit so that the unpaced readers above are not refused): p99 ${paced.result.latencyMs.p99} ms = ${pacedKeeps.toFixed(2)}x the no-reader p99 (${pacedKeeps <= KEEPS ? 'kept' : 'not kept'} by the same ${KEEPS}x rule). Not the target's reading of "in a loop", which is the unpaced readers; shown because a page at the default limit is what the service admits per client.`,
      '',
      `### Closed loop, saturating (${HOLD_CONNECTIONS} connections, as fast as the service answers, ${SECONDS} s per run)`,
      '',
      `The service's CPU is the bottleneck here, so any work by anyone (readers, Redis, the other processes on the machine) moves these figures; kept to show throughput, not as the latency claim. Runs after a warm-up run; the ratio's base is the better of the two no-reader runs.`,
      '',
      table(
        headerOf(false),
        closed.map((r) => rowCells(r, closedBase, false)),
      ),
      '',
      ...encodedRows,
    );
    console.log(sections.slice(-22).join('\n'));
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
