/**
 * Holds over HTTP, the service measured side by side with its floor:
 *   - the service: apps/seat-api as production runs it (Fastify, auth, validation, seat lock, hold script);
 *   - the floor: bench/http/floor-server.ts, bare node:http + the same hold Lua script, nothing else.
 * Both run as child processes against one private redis-server (so INFO commandstats sees only them),
 * the local PostgreSQL (a throw-away schema) and the local Kafka (topics only; sweeper off).
 *
 *   1. uncontended: each request holds 1-4 distinct free seats of 10,000-seat events; rounds interleave
 *      floor and service, as fast as they answer
 *   2. the same at a fixed 2,000 requests/s: latency (target p99 < 25 ms) and Redis round trips per
 *      hold from INFO commandstats (target <= 3)
 *   3. flash sale: 500 connections (500 users) fighting over 1,000 seats, floor and service interleaved
 *      over three rounds: 503 share (target <= 1 %), p99 (target <= 2x the floor's) and answers/s (target
 *      >= 0.5x the floor's), and a check that no seat was sold twice (seats in 201 answers = seats the map
 *      shows held)
 *
 * Run: npm run bench:http   (BENCH_SECONDS=4 per measured run by default)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import * as path from 'node:path';
import { freePort, startPrivateRedis } from '../../test/support/private-redis';
import { Child, spawnTs, waitUntilUp } from '../support/child';
import { BenchService, startService } from '../support/service';
import { LoadResult } from '../support/load';
import { table, writeReport } from '../support/report';
import { processCpuMs, redisCpuMs } from '../support/cpu-time';
import {
  eventsForRate as eventsForRateOf,
  flashSale as flashSaleRun,
  FreshSeats,
  holdRequest,
  holdsPerSecond,
  loadRow as row,
  median,
  newEvents,
  SEATS_PER_EVENT,
  Target,
  uncontended as uncontendedRun,
} from './hold-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = 3;
/**
 * The uncontended section's rounds: its figure is the median of these. On the shared 2-core machine one
 * round's service/floor ratio can swing by a third within a run, so five interleaved rounds give a
 * median one slow spell moves less.
 */
const UNCONTENDED_ROUNDS = 5;
const logFile = (name: string) => path.resolve(__dirname, '..', 'results', `${name}.log.tmp`);
const eventsForRate = (requestsPerSecond: number) => eventsForRateOf(requestsPerSecond, SECONDS);
const uncontended = (target: Target, events: string[], rate?: number) =>
  uncontendedRun(target, events, SECONDS, rate);

const flashSale = (target: Target) => flashSaleRun(target, SECONDS);

/**
 * Commands the service sends to Redis per hold, seen by MONITOR (which marks commands run inside a
 * Lua script as "lua": those are not round trips), split into the hold request's own (they name its event)
 * and background work (the rate limiter's shared sync, the sweeper: no event). Round trips: the reads
 * Redis made from client sockets (INFO total_reads_processed) less one per background command; commands
 * that arrive in one write are one read. Holds one at a time; apart from the timed runs: MONITOR is slow.
 */
async function roundTripsPerHold(redisUrl: string, target: Target, events: string[], holds: number) {
  const Redis = (await import('ioredis')).default;
  const monitor = new Redis(redisUrl);
  const info = new Redis(redisUrl);
  const reads = async () => Number(/total_reads_processed:(\d+)/.exec(await info.info('stats'))![1]);
  const m = await monitor.monitor();
  let seen: Record<string, number> = {};
  m.on('monitor', (_time: string, args: string[], source: string) => {
    if (!source.includes('lua') && args[0].toLowerCase() !== 'info') {
      const own = args.some((a) => events.some((e) => a.includes(e)));
      const name = `${args[0].toLowerCase()} (${own ? 'hold request' : 'background'})`;
      seen[name] = (seen[name] ?? 0) + 1;
    }
  });
  const seats = new FreshSeats(events);
  let ok = 0;
  const started = Date.now();
  const readsBefore = await reads();
  for (let i = 0; i < holds; i++) {
    const { eventId, seatIds } = seats.next();
    const req = holdRequest(target, i, eventId, seatIds);
    const res = await fetch(`${target.base}${req.path}`, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
    });
    ok += res.status === 201 ? 1 : 0;
  }
  const readsDuring = (await reads()) - readsBefore - 1; // less this INFO's own read
  await new Promise((r) => setTimeout(r, 200)); // the last lines reach the monitor
  const during = seen;
  // the same time again with no request: what the service sends anyway (outbox gauges, event list)
  seen = {};
  await new Promise((r) => setTimeout(r, Date.now() - started));
  const idle = seen;
  m.disconnect();
  monitor.disconnect();
  info.disconnect();
  const background = Object.entries(during)
    .filter(([name]) => name.endsWith('(background)'))
    .reduce((a, [, n]) => a + n, 0);
  return { ok, during, idle, roundTrips: (readsDuring - background) / Math.max(1, ok) };
}

interface FlashRun {
  result: LoadResult;
  duplicates: number;
}

/**
 * The flash sale's targets, the service against the floor of the same bench run: medians of
 * the rounds for p99 and answers/s, the 503 share over all the service's answers, the worst duplicates.
 */
function flashSummary(floor: FlashRun[], service: FlashRun[]): string {
  const answersPerSecond = (runs: FlashRun[]) => median(runs.map(({ result: r }) => r.requests / r.seconds));
  const p99 = (runs: FlashRun[]) => median(runs.map(({ result: r }) => r.latencyMs.p99));
  const busy = service.reduce((n, { result: r }) => n + (r.statuses[503] ?? 0), 0);
  const answers = service.reduce((n, { result: r }) => n + r.requests, 0);
  const duplicates = (runs: FlashRun[]) => Math.max(...runs.map((r) => r.duplicates));
  const [rateS, rateF] = [answersPerSecond(service), answersPerSecond(floor)];
  const [tailS, tailF] = [p99(service), p99(floor)];
  return [
    `flash sale (medians of ${service.length} rounds): service 503 share ${((100 * busy) / Math.max(1, answers)).toFixed(2)} % (${busy} of ${answers}; target <= 1 %)`,
    `p99 service ${tailS} ms, floor ${tailF} ms = ${(tailS / Math.max(1, tailF)).toFixed(2)}x (target <= 2x)`,
    `answers/s service ${Math.round(rateS)}, floor ${Math.round(rateF)} = ${(rateS / rateF).toFixed(2)}x (target >= 0.5x)`,
    `seats in two 201 answers: service ${duplicates(service)}, floor ${duplicates(floor)} (must be 0)`,
  ].join('; ');
}

const HEADER = ['run', 'requests', 'holds/s', 'p50 ms', 'p99 ms', 'p99.9 ms', '409 share', 'statuses'];

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const floorPort = await freePort();
  const children: Child[] = [];
  let svc: BenchService | undefined;
  const sections: string[] = [];
  try {
    svc = await startService('http', redis.url, { SWEEPER_ENABLED: 'false' });
    const service = svc;
    const floor = spawnTs(
      'bench/http/floor-server.ts',
      { FLOOR_PORT: String(floorPort), REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'floor:' },
      logFile('http-floor'),
    );
    children.push(floor);
    const floorBase = `http://127.0.0.1:${floorPort}`;
    await waitUntilUp(`${floorBase}/health/live`, floor);

    const jwt = await Promise.all(Array.from({ length: 5000 }, (_, u) => service.token(u)));
    const targets: Record<'floor' | 'service', Target> = {
      floor: {
        name: 'floor',
        base: floorBase,
        auth: (u) => ({ 'x-user': `user-${u}` }),
        newEvent: () => Promise.resolve(randomUUID()), // the floor has no catalogue: any id will do
      },
      service: {
        name: 'service',
        base: service.base,
        auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
        newEvent: (seats) => service.createEvent(seats),
      },
    };
    // only the service has a seat map to warm its catalogue with
    const eventsFor = (t: Target, n: number) => newEvents(t, n, t.name === 'service');

    // warm-up (not reported): JIT, connection pools, script cache; its request rate sizes the runs
    const eventsPerRun: Record<string, number> = {};
    for (const t of [targets.floor, targets.service]) {
      const warm = await uncontended(t, await eventsFor(t, 2));
      eventsPerRun[t.name] = eventsForRate(warm.requests / warm.seconds);
    }
    const ranOut: string[] = [];
    // CPU per hold, summed over the rounds: the process under test, and Redis while it is driven
    const pids: Record<string, number> = { floor: children[0].proc.pid!, service: service.child.proc.pid! };
    const cpu: Record<string, { process: number; redis: number; holds: number }> = {
      floor: { process: 0, redis: 0, holds: 0 },
      service: { process: 0, redis: 0, holds: 0 },
    };
    const redisInfo = new Redis(redis.url);

    // 1. uncontended, as fast as each answers; floor and service interleaved round by round
    console.log(`creating events (${SEATS_PER_EVENT} seats each)...`);
    const rows: (string | number)[][] = [];
    const rates: Record<string, number[]> = { floor: [], service: [] };
    for (let round = 1; round <= UNCONTENDED_ROUNDS; round++) {
      for (const t of [targets.floor, targets.service]) {
        const events = await eventsFor(t, eventsPerRun[t.name]);
        const profiled =
          process.env.BENCH_PROFILE && round === UNCONTENDED_ROUNDS
            ? t.name === 'service'
              ? service.child
              : children[0]
            : null;
        profiled?.proc.kill('SIGWINCH'); // starts the profile of this run
        const before = { process: processCpuMs(pids[t.name]), redis: await redisCpuMs(redisInfo) };
        const r = await uncontended(t, events);
        cpu[t.name].process += processCpuMs(pids[t.name]) - before.process;
        cpu[t.name].redis += (await redisCpuMs(redisInfo)) - before.redis;
        cpu[t.name].holds += r.statuses[201] ?? 0;
        profiled?.proc.kill('SIGWINCH'); // writes it
        rates[t.name].push(holdsPerSecond(r));
        rows.push(row(`${t.name} #${round}`, r));
        if (r.ranOut) {
          ranOut.push(`${t.name} #${round}`);
        }
        console.log(rows.at(-1)!.join('  '));
      }
    }
    const ratio = median(rates.service) / median(rates.floor);
    redisInfo.disconnect();
    const usPerHold = (t: string, what: 'process' | 'redis') =>
      Math.round((cpu[t][what] * 1000) / Math.max(1, cpu[t].holds));
    const cpuTable = table(
      ['CPU per hold (user + system)', 'floor µs', 'service µs', 'service / floor'],
      (['process', 'redis'] as const).map((what) => [
        what === 'process' ? 'HTTP server process' : 'Redis server',
        usPerHold('floor', what),
        usPerHold('service', what),
        (usPerHold('service', what) / usPerHold('floor', what)).toFixed(2),
      ]),
    );
    const t1 = `${table(HEADER, rows)}\n\n${cpuTable}`;
    const summary1 =
      `median holds/s: service ${median(rates.service)}, floor ${median(rates.floor)}; service/floor = ${ratio.toFixed(2)} (target >= 0.6)` +
      (ranOut.length > 0
        ? `; INVALID: ${ranOut.join(', ')} ran out of seats (holds/s capped by the bench)`
        : '; no run ran out of seats');
    console.log(`\n1. Uncontended, 32 connections, ${SECONDS} s per run\n${t1}\n${summary1}`);
    sections.push(
      `## 1. Uncontended holds (1-4 seats each), 32 connections, ${SECONDS} s per run`,
      '',
      t1,
      '',
      summary1,
      '',
    );

    // 2. fixed 2,000 requests/s, with Redis commands counted around the service's run
    const fixedRows: (string | number)[][] = [];
    const floorFixed = await uncontended(targets.floor, await eventsFor(targets.floor, 3), 2000);
    fixedRows.push(row('floor @2000/s', floorFixed));
    const serviceEvents = await eventsFor(targets.service, 3);
    const serviceFixed = await uncontended(targets.service, serviceEvents, 2000);
    fixedRows.push(row('service @2000/s', serviceFixed));
    const trips = await roundTripsPerHold(
      redis.url,
      targets.service,
      await eventsFor(targets.service, 1),
      500,
    );
    const names = [...new Set([...Object.keys(trips.during), ...Object.keys(trips.idle)])].filter(
      (c) => c !== 'monitor',
    );
    const perCommand = names.map((c) => {
      const net = (trips.during[c] ?? 0) - (trips.idle[c] ?? 0);
      return [c, trips.during[c] ?? 0, trips.idle[c] ?? 0, (net / trips.ok).toFixed(2)];
    });
    const ownCommands = perCommand
      .filter((r) => String(r[0]).endsWith('(hold request)'))
      .reduce((a, r) => a + Number(r[3]), 0);
    const backgroundCommands = perCommand
      .filter((r) => String(r[0]).endsWith('(background)'))
      .reduce((a, r) => a + Number(r[3]), 0);
    const t2 = table(HEADER, fixedRows);
    const t2b = table(
      [
        'command sent by the service',
        `calls during ${trips.ok} holds`,
        'calls in as long idle',
        'per hold (net)',
      ],
      perCommand,
    );
    const summary2 = `service p99 at 2,000 requests/s: ${serviceFixed.latencyMs.p99} ms (target < 25 ms); Redis commands per hold request: ${ownCommands.toFixed(2)} in ${trips.roundTrips.toFixed(2)} round trips (target <= 3 round trips), plus ${backgroundCommands.toFixed(2)} per hold of background work (rate-limiter sync, shared by all requests)`;
    console.log(`\n2. Fixed rate 2,000 requests/s, 100 connections\n${t2}\n${t2b}\n${summary2}`);
    sections.push(
      '## 2. Fixed rate: 2,000 requests/s, 100 connections',
      '',
      t2,
      '',
      '### Redis commands and round trips per hold (MONITOR, commands inside Lua scripts excluded; INFO total_reads_processed)',
      '',
      t2b,
      '',
      summary2,
      '',
    );

    // 3. flash sale: 500 users, 1,000 seats; the floor under the same load is what the service is held to
    const flashRows: (string | number)[][] = [];
    const seatChecks: string[] = [];
    // rounds interleave floor and service (a new 1,000-seat event each), as in section 1
    const flash: Record<string, FlashRun[]> = { floor: [], service: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of [targets.floor, targets.service]) {
        const { result, eventId, granted, duplicates } = await flashSale(t);
        flash[t.name].push({ result, duplicates });
        flashRows.push(row(`${t.name} flash sale #${round}`, result));
        if (t.name === 'service') {
          const map = (await (
            await fetch(`${service.base}/v1/events/${eventId}/seats`, { headers: t.auth(0) })
          ).json()) as { counts: { total: number; held: number; available: number; booked: number } };
          seatChecks.push(
            `service #${round}: seats in 201 answers ${granted}, seats in two 201 answers ${duplicates}` +
              ` (${duplicates === 0 && granted <= 1000 ? 'no seat sold twice' : 'DOUBLE SALE'});` +
              ` seat map after the sale ${JSON.stringify(map.counts)} (also counts holds answered after the run stopped)`,
          );
        }
      }
    }
    const t3 = table(HEADER, flashRows);
    const summary3 = flashSummary(flash.floor, flash.service);
    console.log(
      `\n3. Flash sale: 500 connections, 1,000 seats, ${SECONDS} s\n${t3}\n${seatChecks.join('\n')}\n${summary3}`,
    );
    sections.push(
      `## 3. Flash sale: 500 connections (500 users), 1,000 seats, ${SECONDS} s`,
      '',
      t3,
      '',
      ...seatChecks,
      '',
      summary3,
      '',
    );

    // 4. the adapter: one minimal Nest app (no auth, no lock) on Fastify and on Express, interleaved
    const adapters: Target[] = [];
    for (const adapter of ['fastify', 'express']) {
      const port = await freePort();
      const child = spawnTs(
        'bench/http/adapter-server.ts',
        {
          ADAPTER: adapter,
          ADAPTER_PORT: String(port),
          REDIS_URL: redis.url,
          REDIS_KEY_PREFIX: `${adapter}:`,
        },
        logFile(`http-${adapter}`),
      );
      children.push(child);
      await waitUntilUp(`http://127.0.0.1:${port}/v1/health/live`, child);
      adapters.push({ ...targets.floor, name: `nest-${adapter}`, base: `http://127.0.0.1:${port}` });
    }
    const adapterRows: (string | number)[][] = [];
    const adapterRates: Record<string, number[]> = {};
    for (const t of adapters) {
      const warm = await uncontended(t, await eventsFor(t, 2)); // warm-up, sizes the runs
      eventsPerRun[t.name] = eventsForRate(warm.requests / warm.seconds);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of adapters) {
        const r = await uncontended(t, await eventsFor(t, eventsPerRun[t.name]));
        (adapterRates[t.name] ??= []).push(holdsPerSecond(r));
        adapterRows.push(row(`${t.name} #${round}`, r));
      }
    }
    const t4 = table(HEADER, adapterRows);
    const fastify = median(adapterRates['nest-fastify']);
    const express = median(adapterRates['nest-express']);
    const summary4 = `median holds/s: Fastify ${fastify}, Express ${express}; Fastify/Express = ${(fastify / express).toFixed(2)}`;
    console.log(`\n4. Nest adapter: the same minimal app on Fastify and Express\n${t4}\n${summary4}`);
    sections.push(
      '## 4. Nest HTTP adapter: one minimal Nest app (ValidationPipe + hold script) on each',
      '',
      t4,
      '',
      summary4,
      '',
    );
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await svc?.stop();
    await redis.stop();
  }
  const file = writeReport('http', 'Holds over HTTP: service vs floor', 'npm run bench:http', sections);
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
