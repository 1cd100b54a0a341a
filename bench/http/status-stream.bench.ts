/**
 * The seat.status stream's cost, A/B: two instances of the seat API, one with SEAT_STATUS_STREAM_ENABLED
 * (every hold script appends its change to the shard's outbox) and one without, each on its own private
 * Redis, fed the uncontended hold load of bench:http in interleaved rounds (the order flips each round).
 * As bench:http, the sweeper and the relay are off: the hold path's cost (the record's XADD in the hold's
 * script, the wake-up of the shard's owner). BENCH_RELAY=1 runs both with the sweeper and the relay
 * against the shared Kafka, so the instance also publishes every record (one instance relays everything
 * here; a deployment's instances share the shards). Prints holds/s, the service's CPU per hold, and Redis
 * commands per hold: all Redis ran (INFO commandstats; a script's own commands count, so this is the hold
 * script's work more than the service's traffic), and, after the timed runs, those the service sent
 * (MONITOR over holds one at a time, without the commands run inside scripts) by command.
 *
 * Run: npm run bench:status-stream   (BENCH_ROUNDS, default 6; BENCH_SECONDS per run, default 4;
 *      BENCH_RELAY=1 with the relay)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { PrivateRedis, startPrivateRedis } from '../../test/support/private-redis';
import { processCpuMs } from '../support/cpu-time';
import { table, writeReport } from '../support/report';
import { BenchService, startService } from '../support/service';
import {
  eventsForRate,
  FreshSeats,
  holdRequest,
  holdsPerSecond,
  median,
  newEvents,
  Target,
  uncontended,
} from './hold-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const RELAY = process.env.BENCH_RELAY === '1';

interface Side {
  name: string;
  redis: PrivateRedis;
  client: Redis;
  service: BenchService;
  target: Target;
  eventsPerRun: number;
  rates: number[];
  cpuMs: number;
  holds: number;
  allCommands: number;
  xadds: number;
}

/**
 * Redis's counters: every command run, XADD among them. Scripts' own commands count (INFO commandstats, and
 * total_commands_processed too since Redis 7): what clients sent is counted by sentPerHold.
 */
async function counters(r: Redis): Promise<{ all: number; xadd: number }> {
  let all = 0;
  let xadd = 0;
  for (const m of (await r.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
    all += Number(m[2]);
    if (m[1] === 'xadd') {
      xadd = Number(m[2]);
    }
  }
  return { all, xadd };
}

/** Holds made one at a time for sentPerHold, on a warm event made for them. */
const SENT_HOLDS = 500;
const sentOf = ({ holds, sent }: { holds: number; sent: Record<string, number> }) =>
  (Object.values(sent).reduce((a, n) => a + n, 0) / Math.max(1, holds)).toFixed(2);

/**
 * Commands the service sent to Redis per hold, by command, seen by MONITOR (which marks those a script
 * ran as "lua": part of the call that ran them). Holds one at a time, after the timed runs: MONITOR slows
 * Redis. A warm event's holds: its first load and index build come before.
 */
async function sentPerHold(side: Side): Promise<{ holds: number; sent: Record<string, number> }> {
  const [event] = await newEvents(side.target, 1);
  const monitor = await new Redis(side.redis.url, { lazyConnect: true }).monitor();
  const sent: Record<string, number> = {};
  let marker = '';
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const name = args[0].toLowerCase();
    if (name === 'echo' && args[1]?.startsWith('sent-per-hold:')) {
      marker = args[1];
    } else if (!source.includes('lua')) {
      sent[name] = (sent[name] ?? 0) + 1;
    }
  });
  const seats = new FreshSeats([event]);
  let holds = 0;
  for (let i = 0; i < SENT_HOLDS; i++) {
    const { eventId, seatIds } = seats.next();
    const req = holdRequest(side.target, i, eventId, seatIds);
    const res = await fetch(`${side.target.base}${req.path}`, {
      method: 'POST',
      headers: req.headers,
      body: req.body,
    });
    await res.arrayBuffer();
    holds += res.status === 201 ? 1 : 0;
  }
  // Redis shows commands in the order it ran them: once the marker is shown, every hold's are
  const end = `sent-per-hold:${side.name}`;
  await side.client.echo(end);
  while (marker !== end) {
    await new Promise((r) => setTimeout(r, 20));
  }
  monitor.disconnect();
  delete sent.echo;
  delete sent.monitor;
  return { holds, sent };
}

async function startSide(name: string, enabled: boolean): Promise<Side> {
  const redis = await startPrivateRedis();
  const service = await startService(`status_${name}`, redis.url, {
    SWEEPER_ENABLED: String(RELAY),
    SEAT_STATUS_STREAM_ENABLED: String(enabled),
  });
  const jwt = await Promise.all(Array.from({ length: 5000 }, (_, u) => service.token(u)));
  const target: Target = {
    name,
    base: service.base,
    auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
    newEvent: (seats) => service.createEvent(seats),
  };
  const client = new Redis(redis.url);
  return {
    name,
    redis,
    client,
    service,
    target,
    eventsPerRun: 0,
    rates: [],
    cpuMs: 0,
    holds: 0,
    allCommands: 0,
    xadds: 0,
  };
}

async function main(): Promise<void> {
  const sides: Side[] = [];
  try {
    sides.push(await startSide('stream_on', true));
    sides.push(await startSide('stream_off', false));
    for (const side of sides) {
      // warm-up (not reported): JIT, pools; its rate sizes the runs so that none runs out of seats
      const warm = await uncontended(side.target, await newEvents(side.target, 2), SECONDS);
      side.eventsPerRun = eventsForRate(warm.requests / warm.seconds, SECONDS);
    }
    const rows: (string | number)[][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 === 1 ? sides : [...sides].reverse()) {
        const events = await newEvents(side.target, side.eventsPerRun);
        const pid = side.service.child.proc.pid!;
        const cpu = processCpuMs(pid);
        const before = await counters(side.client);
        const r = await uncontended(side.target, events, SECONDS);
        const after = await counters(side.client);
        side.cpuMs += processCpuMs(pid) - cpu;
        const holds = r.statuses[201] ?? 0;
        side.holds += holds;
        // the bench's own INFO calls (two per counters()) are left out
        side.allCommands += after.all - before.all - 2;
        side.xadds += after.xadd - before.xadd;
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
    const sent: Awaited<ReturnType<typeof sentPerHold>>[] = [];
    for (const side of sides) {
      sent.push(await sentPerHold(side));
    }
    const per = (n: number, side: Side) => (n / Math.max(1, side.holds)).toFixed(2);
    const us = (ms: number, side: Side) => Math.round((ms * 1000) / Math.max(1, side.holds));
    const [on, off] = sides;
    const summary = table(
      [
        'side',
        'holds/s (median)',
        'CPU per hold µs',
        'commands the service sent per hold (MONITOR)',
        "commands Redis ran per hold (scripts' own included)",
        'XADD per hold (in the hold script)',
      ],
      sides.map((s, i) => [
        s.name,
        median(s.rates),
        us(s.cpuMs, s),
        sentOf(sent[i]),
        per(s.allCommands, s),
        per(s.xadds, s),
      ]),
    );
    const names = [...new Set(sent.flatMap((s) => Object.keys(s.sent)))].sort();
    const sentTable = table(
      [
        `command the service sent (${SENT_HOLDS} holds one at a time)`,
        ...sides.map((s) => `${s.name} per hold`),
      ],
      names.map((c) => [c, ...sent.map((s) => ((s.sent[c] ?? 0) / Math.max(1, s.holds)).toFixed(2))]),
    );
    const ratios =
      `stream on / off: holds/s ${(median(on.rates) / median(off.rates)).toFixed(2)} (target at least 0.90), ` +
      `CPU per hold ${(us(on.cpuMs, on) / us(off.cpuMs, off)).toFixed(2)}, ` +
      `Redis commands per hold +${(on.allCommands / on.holds - off.allCommands / off.holds).toFixed(2)}`;
    const body = `${table(['run', 'holds/s', 'p99 ms', 'note'], rows)}\n\n${summary}\n\n${sentTable}\n\n${ratios}`;
    console.log(`\n${body}`);
    const file = writeReport(
      RELAY ? 'status-stream-relay' : 'status-stream',
      `The seat.status stream: holds with it on vs off${RELAY ? ', sweeper and relay running' : ''}`,
      `${RELAY ? 'BENCH_RELAY=1 ' : ''}npm run bench:status-stream`,
      [`## Uncontended holds, 32 connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds\n\n${body}`],
    );
    console.log(`report: ${file}`);
  } finally {
    for (const side of sides) {
      await side.service.stop();
      side.client.disconnect();
      await side.redis.stop();
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
