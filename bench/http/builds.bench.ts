/**
 * Two or more builds of the seat API, A/B: this checkout and each checkout named in BENCH_BUILDS (a
 * directory holding another version of the code, e.g. a `git worktree`, with node_modules), started as
 * `npm start` runs the service, side by side on one private Redis, fed the uncontended hold load of
 * bench:http in interleaved rounds (the order rotates each round). It prints holds/s and CPU per hold of
 * each, from the process's /proc stat: CPU per hold is the steadier figure on a shared 2-core machine.
 * What a piece of code saves is the CPU per hold of a build without it against this one; the median of
 * the per-round ratios compares runs made moments apart, so a load that comes and goes on the machine
 * moves it less than the ratio of the totals.
 *
 * Run: BENCH_BUILDS="../without-x ../without-y" npm run bench:builds   (BENCH_ROUNDS, default 6;
 *      BENCH_SECONDS per run, default 4)
 */
import 'reflect-metadata';
import * as path from 'node:path';
import { startPrivateRedis } from '../../test/support/private-redis';
import { repoRoot } from '../support/child';
import { processCpuMs } from '../support/cpu-time';
import { table, writeReport } from '../support/report';
import { BenchService, startService } from '../support/service';
import { eventsForRate, holdsPerSecond, median, newEvents, Target, uncontended } from './hold-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const OTHERS = (process.env.BENCH_BUILDS ?? '').split(' ').filter(Boolean);

interface Side {
  name: string;
  root: string;
  service: BenchService;
  target: Target;
  eventsPerRun: number;
  rates: number[];
  /** CPU per hold of each round, in µs. */
  perRound: number[];
  cpuMs: number;
  holds: number;
}

async function startSide(name: string, root: string, redisUrl: string): Promise<Side> {
  const service = await startService(
    `build_${name.replace(/\W/g, '_')}`,
    redisUrl,
    { SWEEPER_ENABLED: 'false' },
    undefined,
    undefined,
    root,
  );
  const jwt = await Promise.all(Array.from({ length: 5000 }, (_, u) => service.token(u)));
  const target: Target = {
    name,
    base: service.base,
    auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
    newEvent: (seats) => service.createEvent(seats),
  };
  return { name, root, service, target, eventsPerRun: 0, rates: [], perRound: [], cpuMs: 0, holds: 0 };
}

async function main(): Promise<void> {
  if (OTHERS.length === 0) {
    throw new Error('BENCH_BUILDS names no other checkout to compare this one with');
  }
  const redis = await startPrivateRedis();
  const sides: Side[] = [];
  try {
    for (const root of [repoRoot, ...OTHERS.map((dir) => path.resolve(dir))]) {
      sides.push(await startSide(root === repoRoot ? 'this' : path.basename(root), root, redis.url));
    }
    for (const side of sides) {
      // warm-up (not reported): JIT, pools; its rate sizes the runs so that none runs out of seats
      const warm = await uncontended(side.target, await newEvents(side.target, 2), SECONDS);
      side.eventsPerRun = eventsForRate(warm.requests / warm.seconds, SECONDS);
    }
    const rows: (string | number)[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]);
      for (const side of order) {
        const events = await newEvents(side.target, side.eventsPerRun);
        const pid = side.service.child.proc.pid!;
        const before = processCpuMs(pid);
        const r = await uncontended(side.target, events, SECONDS);
        const cpuMs = processCpuMs(pid) - before;
        const holds = r.statuses[201] ?? 0;
        side.cpuMs += cpuMs;
        side.holds += holds;
        side.rates.push(holdsPerSecond(r));
        side.perRound.push((cpuMs * 1000) / Math.max(1, holds));
        rows.push([
          `${side.name} #${round}`,
          holdsPerSecond(r),
          Math.round(side.perRound.at(-1)!),
          r.latencyMs.p99,
          r.ranOut ? 'ran out of seats' : '',
        ]);
        console.log(rows.at(-1)!.join('  '));
      }
    }
    const us = (side: Side) => Math.round((side.cpuMs * 1000) / Math.max(1, side.holds));
    const [base] = sides;
    const perRoundRatio = (s: Side) => median(s.perRound.map((cpu, i) => cpu / base.perRound[i]));
    const summary = table(
      [
        'build',
        'checkout',
        'holds/s (median)',
        'CPU per hold µs',
        `CPU per hold / ${base.name}'s`,
        `same, median of the rounds' ratios`,
      ],
      sides.map((s) => [
        s.name,
        s.root === repoRoot ? '.' : path.relative(repoRoot, s.root),
        median(s.rates),
        us(s),
        (us(s) / us(base)).toFixed(2),
        perRoundRatio(s).toFixed(3),
      ]),
    );
    const body = `${table(['run', 'holds/s', 'CPU per hold µs', 'p99 ms', 'note'], rows)}\n\n${summary}`;
    console.log(`\n${body}`);
    const file = writeReport(
      'builds',
      'Builds of the seat API side by side: CPU per hold',
      `BENCH_BUILDS="${OTHERS.join(' ')}" npm run bench:builds`,
      [`## Uncontended holds, 32 connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds\n\n${body}`],
    );
    console.log(`report: ${file}`);
  } finally {
    for (const side of sides) {
      await side.service.stop();
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
