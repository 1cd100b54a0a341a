/**
 * The seat.status stream's cost, A/B: two instances of the seat API, one with SEAT_STATUS_STREAM_ENABLED
 * (every hold script appends its change to the shard's outbox) and one without, each on its own private
 * Redis, fed the uncontended hold load of bench:http in interleaved rounds (the order flips each round).
 * As bench:http, the sweeper and the relay are off: the hold path's cost (the record's XADD in the hold's
 * script, the wake-up of the shard's owner). BENCH_RELAY=1 runs both with the sweeper and the relay
 * against the shared Kafka, so the instance also publishes every record (one instance relays everything
 * here; a deployment's instances share the shards). Prints holds/s, the service's CPU per hold, and Redis
 * commands per hold: those clients sent (INFO stats) and all commands Redis ran (INFO commandstats).
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
import { eventsForRate, holdsPerSecond, median, newEvents, Target, uncontended } from './hold-load';

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
  clientCommands: number;
  allCommands: number;
  xadds: number;
}

/** Redis's counters: commands clients sent, and every command run (inside scripts too), XADD among them. */
async function counters(r: Redis): Promise<{ client: number; all: number; xadd: number }> {
  const client = Number(/total_commands_processed:(\d+)/.exec(await r.info('stats'))![1]);
  let all = 0;
  let xadd = 0;
  for (const m of (await r.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) {
    all += Number(m[2]);
    if (m[1] === 'xadd') {
      xadd = Number(m[2]);
    }
  }
  return { client, all, xadd };
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
    clientCommands: 0,
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
        side.clientCommands += after.client - before.client - 2;
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
    const per = (n: number, side: Side) => (n / Math.max(1, side.holds)).toFixed(2);
    const us = (ms: number, side: Side) => Math.round((ms * 1000) / Math.max(1, side.holds));
    const [on, off] = sides;
    const summary = table(
      [
        'side',
        'holds/s (median)',
        'CPU per hold µs',
        'client commands per hold',
        'Redis commands per hold',
        'XADD per hold',
      ],
      sides.map((s) => [
        s.name,
        median(s.rates),
        us(s.cpuMs, s),
        per(s.clientCommands, s),
        per(s.allCommands, s),
        per(s.xadds, s),
      ]),
    );
    const ratios =
      `stream on / off: holds/s ${(median(on.rates) / median(off.rates)).toFixed(2)} (target at least 0.90), ` +
      `CPU per hold ${(us(on.cpuMs, on) / us(off.cpuMs, off)).toFixed(2)}, ` +
      `Redis commands per hold +${(on.allCommands / on.holds - off.allCommands / off.holds).toFixed(2)}`;
    const body = `${table(['run', 'holds/s', 'p99 ms', 'note'], rows)}\n\n${summary}\n\n${ratios}`;
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
