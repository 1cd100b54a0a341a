/**
 * V8 flags of the seat API, A/B: two instances of the service side by side on one Redis, one run as
 * production runs it (SERVER_NODE_ARGS, the flags of scripts/start.sh and the Dockerfile) and one with
 * V8's defaults (or BENCH_NODE_FLAGS_B), fed the uncontended hold load of bench:http in interleaved
 * rounds (the order flips each round). It prints holds/s, CPU per hold and garbage-collection time per
 * hold of each: CPU per hold is the steadier figure on a shared 2-core machine.
 *
 * Run: npm run bench:node-flags   (BENCH_ROUNDS, default 6; BENCH_SECONDS per run, default 4;
 *      BENCH_NODE_FLAGS_B="--max-semi-space-size=256" compares production with other flags)
 */
import 'reflect-metadata';
import { readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startPrivateRedis } from '../../test/support/private-redis';
import { SERVER_NODE_ARGS } from '../support/child';
import { processCpuMs } from '../support/cpu-time';
import { table, writeReport } from '../support/report';
import { BenchService, startService } from '../support/service';
import { eventsForRate, holdsPerSecond, median, newEvents, Target, uncontended } from './hold-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const FLAGS_B = (process.env.BENCH_NODE_FLAGS_B ?? '').split(' ').filter(Boolean);
const GC_PRELOAD = ['-r', path.join(__dirname, '..', 'support', 'gc-time.js')];

interface Side {
  name: string;
  flags: string[];
  service: BenchService;
  target: Target;
  gcFile: string;
  eventsPerRun: number;
  rates: number[];
  cpuMs: number;
  gcMs: number;
  holds: number;
}

const gcMsOf = (side: Side): number => {
  try {
    return (JSON.parse(readFileSync(side.gcFile, 'utf8')) as { ms: number }).ms;
  } catch {
    return 0; // not written yet: no collection before the first run
  }
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startSide(name: string, flags: string[], redisUrl: string): Promise<Side> {
  const gcFile = path.join(os.tmpdir(), `bench-node-flags-${process.pid}-${name}.json`);
  const service = await startService(
    `flags_${name}`,
    redisUrl,
    { SWEEPER_ENABLED: 'false', BENCH_GC_FILE: gcFile },
    undefined,
    [...flags, ...GC_PRELOAD],
  );
  const jwt = await Promise.all(Array.from({ length: 5000 }, (_, u) => service.token(u)));
  const target: Target = {
    name,
    base: service.base,
    auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
    newEvent: (seats) => service.createEvent(seats),
  };
  return { name, flags, service, target, gcFile, eventsPerRun: 0, rates: [], cpuMs: 0, gcMs: 0, holds: 0 };
}

const eventsFor = (side: Side, n: number) => newEvents(side.target, n);

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const sides: Side[] = [];
  try {
    sides.push(await startSide('production', [...SERVER_NODE_ARGS], redis.url));
    sides.push(await startSide(FLAGS_B.length > 0 ? 'other_flags' : 'v8_defaults', FLAGS_B, redis.url));
    for (const side of sides) {
      // warm-up (not reported): JIT, pools; its rate sizes the runs so that none runs out of seats
      const warm = await uncontended(side.target, await eventsFor(side, 2), SECONDS);
      side.eventsPerRun = eventsForRate(warm.requests / warm.seconds, SECONDS);
    }
    const rows: (string | number)[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
        const events = await eventsFor(side, side.eventsPerRun);
        await pause(250); // the GC file is written every 100 ms: what event creation collected is in it
        const pid = side.service.child.proc.pid!;
        const before = { cpu: processCpuMs(pid), gc: gcMsOf(side) };
        const r = await uncontended(side.target, events, SECONDS);
        await pause(250);
        side.cpuMs += processCpuMs(pid) - before.cpu;
        side.gcMs += gcMsOf(side) - before.gc;
        side.holds += r.statuses[201] ?? 0;
        side.rates.push(holdsPerSecond(r));
        rows.push([
          `${side.name} #${round}`,
          holdsPerSecond(r),
          r.latencyMs.p99,
          r.ranOut ? 'ran out of seats' : '',
        ]);
        console.log(rows.at(-1)!.join('  '));
      }
    }
    const us = (ms: number, side: Side) => Math.round((ms * 1000) / Math.max(1, side.holds));
    const [a, b] = sides;
    const summary = table(
      ['flags', 'holds/s (median)', 'CPU per hold µs', 'GC per hold µs'],
      sides.map((s) => [
        `${s.name}: ${s.flags.join(' ') || '(none)'}`,
        median(s.rates),
        us(s.cpuMs, s),
        us(s.gcMs, s),
      ]),
    );
    const ratios =
      `${a.name} / ${b.name}: holds/s ${(median(a.rates) / median(b.rates)).toFixed(2)}, ` +
      `CPU per hold ${(us(a.cpuMs, a) / us(b.cpuMs, b)).toFixed(2)}, GC per hold ${(us(a.gcMs, a) / Math.max(1, us(b.gcMs, b))).toFixed(2)}`;
    const body = `${table(['run', 'holds/s', 'p99 ms', 'note'], rows)}\n\n${summary}\n\n${ratios}`;
    console.log(`\n${body}`);
    const file = writeReport(
      FLAGS_B.length > 0 ? 'node-flags-b' : 'node-flags', // a comparison with other flags keeps its own report
      'V8 flags of the seat API: production vs another set',
      `${FLAGS_B.length > 0 ? `BENCH_NODE_FLAGS_B="${FLAGS_B.join(' ')}" ` : ''}npm run bench:node-flags`,
      [`## Uncontended holds, 32 connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds\n\n${body}`],
    );
    console.log(`report: ${file}`);
  } finally {
    for (const side of sides) {
      await side.service.stop();
      rmSync(side.gcFile, { force: true });
    }
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
