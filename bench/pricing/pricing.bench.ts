/**
 * Priced holds, side by side in one run, on one seat API instance and one private Redis:
 *   1. holds on shows without a price list vs holds on shows with one (the same body, `seatIds`: each seat
 *      sold as its category's default type, priced in the answer), and, for information, holds naming a
 *      ticket type per seat (`seats`: a body the validation shortcut of ADR 0008 does not take); the
 *      uncontended load of bench:http, 32 connections, in interleaved rounds (the order turns each round):
 *      p99, holds/s, the service's CPU per hold; then the Redis commands the service sent per hold
 *      (MONITOR, holds one at a time): pricing must add no round trip;
 *   2. the promo race: a code with maxUses 50 on 500 holds, whose confirms race across two instances
 *      sharing PostgreSQL and Redis (503s retried with the same orderId, as a client does): how many
 *      bookings carry the code, and the code's count.
 *
 * Run: npm run bench:pricing   (BENCH_ROUNDS, default 6; BENCH_SECONDS per run, default 4)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { Client } from 'pg';
import { PrivateRedis, startPrivateRedis } from '../../test/support/private-redis';
import { processCpuMs } from '../support/cpu-time';
import { load, LoadResult } from '../support/load';
import { table, writeReport } from '../support/report';
import { BenchService, DATABASE_URL, signBenchToken, startService } from '../support/service';
import { eventsForRate, FreshSeats, holdsPerSecond, median, newEvents, Target } from '../http/hold-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const RACE_HOLDS = 500;
const RACE_MAX_USES = 50;

/** The bench show's one category (bench/support/service.ts createEvent): two ticket types. */
const PRICES = {
  currency: 'EUR',
  categories: [
    {
      key: 'standard',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 5000 },
        { key: 'child', label: 'Child', price: 2500 },
      ],
    },
  ],
};

type Body = (seatIds: string[], n: number) => unknown;

interface Side {
  name: string;
  target: Target;
  body: Body;
  eventsPerRun: number;
  p99: number[];
  rates: number[];
  cpuMs: number;
  holds: number;
}

async function admin(service: BenchService, method: string, path: string, body: unknown): Promise<any> {
  const token = await signBenchToken('bench-admin', ['admin']);
  const res = await fetch(`${service.base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  }
  return res.json();
}

function targetOf(service: BenchService, name: string, priced: boolean, jwt: string[]): Target {
  return {
    name,
    base: service.base,
    auth: (u) => ({ authorization: `Bearer ${jwt[u]}` }),
    newEvent: async (seats) => {
      const eventId = await service.createEvent(seats);
      if (priced) {
        await admin(service, 'PUT', `/v1/events/${eventId}/pricing`, PRICES);
      }
      return eventId;
    },
  };
}

async function run(side: Side, events: string[], seconds: number): Promise<LoadResult> {
  const seats = new FreshSeats(events);
  let n = 0;
  return load({
    url: side.target.base,
    connections: 32,
    durationSeconds: seconds,
    next: () => {
      const { eventId, seatIds } = seats.next();
      const user = n++ % 5000;
      return {
        method: 'POST',
        path: `/v1/events/${eventId}/holds`,
        headers: { 'content-type': 'application/json', ...side.target.auth(user) },
        body: JSON.stringify(side.body(seatIds, n)),
      };
    },
  });
}

/** Commands the service sent to Redis per hold (MONITOR; those scripts ran are not the service's). */
async function sentPerHold(redisUrl: string, client: Redis, side: Side, holds: number): Promise<number> {
  const [event] = await newEvents(side.target, 1);
  const monitor = await new Redis(redisUrl, { lazyConnect: true }).monitor();
  let sent = 0;
  let done = false;
  const end = `sent-per-hold:${side.name}`;
  monitor.on('monitor', (_t: string, args: string[], source: string) => {
    if (args[0].toLowerCase() === 'echo' && args[1] === end) {
      done = true;
    } else if (!source.includes('lua') && !['monitor', 'echo'].includes(args[0].toLowerCase())) {
      sent++;
    }
  });
  const seats = new FreshSeats([event]);
  let made = 0;
  for (let i = 0; i < holds; i++) {
    const { eventId, seatIds } = seats.next();
    const res = await fetch(`${side.target.base}/v1/events/${eventId}/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...side.target.auth(i) },
      body: JSON.stringify(side.body(seatIds, i)),
    });
    await res.arrayBuffer();
    made += res.status === 201 ? 1 : 0;
  }
  await client.echo(end);
  while (!done) {
    await new Promise((r) => setTimeout(r, 20));
  }
  monitor.disconnect();
  return sent / Math.max(1, made);
}

async function holdsSection(redis: PrivateRedis, client: Redis, service: BenchService): Promise<string> {
  const jwt = await Promise.all(Array.from({ length: 5000 }, (_, u) => service.token(u)));
  const seatIdsBody: Body = (seatIds) => ({ seatIds });
  const sides: Side[] = [
    { name: 'no price list', target: targetOf(service, 'unpriced', false, jwt), body: seatIdsBody },
    { name: 'priced (seatIds)', target: targetOf(service, 'priced', true, jwt), body: seatIdsBody },
    {
      name: 'priced, a type per seat (seats)',
      target: targetOf(service, 'typed', true, jwt),
      body: ((seatIds: string[], n: number) => ({
        seats: seatIds.map((seatId, k) => ({ seatId, ticketType: (n + k) % 2 ? 'child' : 'adult' })),
      })) as Body,
    },
  ].map((s) => ({ ...s, eventsPerRun: 0, p99: [], rates: [], cpuMs: 0, holds: 0 }));
  for (const side of sides) {
    // warm-up (not reported): JIT, pools, caches; its rate sizes the runs so that none runs out of seats
    const warm = await run(side, await newEvents(side.target, 2), SECONDS);
    side.eventsPerRun = eventsForRate(warm.requests / warm.seconds, SECONDS);
  }
  const pid = service.child.proc.pid!;
  const rows: (string | number)[][] = [];
  const ratios: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? sides : [...sides].reverse();
    for (const side of order) {
      const events = await newEvents(side.target, side.eventsPerRun);
      const cpu = processCpuMs(pid);
      const r = await run(side, events, SECONDS);
      side.cpuMs += processCpuMs(pid) - cpu;
      side.holds += r.statuses[201] ?? 0;
      side.p99.push(r.latencyMs.p99);
      side.rates.push(holdsPerSecond(r));
      const other = Object.entries(r.statuses).filter(([s]) => s !== '201');
      rows.push([
        `${side.name} #${round}`,
        holdsPerSecond(r),
        r.latencyMs.p50,
        r.latencyMs.p99,
        other.map(([s, n]) => `${s}×${n}`).join(' '),
      ]);
      console.log(rows.at(-1)!.join('  '));
    }
    ratios.push(sides[1].p99.at(-1)! / sides[0].p99.at(-1)!);
  }
  const sent: number[] = [];
  for (const side of sides) {
    sent.push(await sentPerHold(redis.url, client, side, 300));
  }
  const us = (s: Side) => Math.round((s.cpuMs * 1000) / Math.max(1, s.holds));
  const summary = table(
    [
      'side',
      'p99 ms (median of rounds)',
      'holds/s (median)',
      'service CPU per hold µs',
      'Redis commands the service sent per hold (MONITOR)',
    ],
    sides.map((s, i) => [s.name, median(s.p99), median(s.rates), us(s), sent[i].toFixed(2)]),
  );
  const [plain, priced, typed] = sides;
  const verdict =
    `priced / no price list: p99 ${median(ratios).toFixed(2)} (median of the rounds' ratios; target at most 1.10: ` +
    `${median(ratios) <= 1.1 ? 'met' : 'not met'}), holds/s ${(median(priced.rates) / median(plain.rates)).toFixed(2)}, ` +
    `CPU per hold ${(us(priced) / us(plain)).toFixed(2)}, Redis commands sent per hold ${sent[1].toFixed(2)} vs ${sent[0].toFixed(2)} ` +
    `(no extra round trip: ${sent[1] - sent[0] < 0.05 ? 'met' : 'not met'}); a type per seat: p99 ` +
    `${(median(typed.p99) / median(plain.p99)).toFixed(2)} of no price list`;
  return `## Holds, 32 connections, ${SECONDS} s per run, ${ROUNDS} interleaved rounds\n\n${table(['run', 'holds/s', 'p50 ms', 'p99 ms', 'other answers'], rows)}\n\n${summary}\n\n${verdict}`;
}

async function raceSection(redis: PrivateRedis, a: BenchService): Promise<string> {
  const b = await startService('pricing_b', redis.url, { SEAT_LOCK_WAIT_MS: '5000' }, { schema: a.schema });
  try {
    const eventId = await a.createEvent(RACE_HOLDS);
    await admin(a, 'PUT', `/v1/events/${eventId}/pricing`, PRICES);
    await admin(a, 'POST', `/v1/events/${eventId}/promo-codes`, {
      code: 'FIFTY',
      kind: 'percent',
      value: 20,
      maxUses: RACE_MAX_USES,
    });
    const holds: { holdId: string; token: string }[] = [];
    for (let i = 0; i < RACE_HOLDS; i += 50) {
      holds.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, async (_, k) => {
            const token = await signBenchToken(`racer-${i + k}`, []);
            const res = await fetch(`${(i + k) % 2 ? b.base : a.base}/v1/events/${eventId}/holds`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              body: JSON.stringify({
                seatIds: [`S-R${Math.floor((i + k) / 100) + 1}-${((i + k) % 100) + 1}`],
                promoCode: 'FIFTY',
              }),
            });
            if (res.status !== 201) {
              throw new Error(`race hold: ${res.status} ${await res.text()}`);
            }
            return { holdId: ((await res.json()) as { holdId: string }).holdId, token };
          }),
        )),
      );
    }
    const confirm = async (h: { holdId: string; token: string }, i: number, base: string) => {
      const res = await fetch(`${base}/v1/holds/${h.holdId}/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.token}` },
        body: JSON.stringify({ orderId: `race-${i}` }),
      });
      const body = (await res.json()) as { code?: string };
      return `${res.status}${body.code ? ` ${body.code}` : ''}`;
    };
    const started = performance.now();
    const answers = await Promise.all(holds.map((h, i) => confirm(h, i, i % 2 ? a.base : b.base)));
    const firstAnswers = new Map<string, number>();
    answers.forEach((s) => firstAnswers.set(s, (firstAnswers.get(s) ?? 0) + 1));
    let retried = 0;
    for (let round = 0; round < 20 && answers.some((s) => s.startsWith('503')); round++) {
      const again = answers.map((s, i) => (s.startsWith('503') ? i : -1)).filter((i) => i >= 0);
      retried += again.length;
      const next = await Promise.all(again.map((i) => confirm(holds[i], i, i % 2 ? b.base : a.base)));
      again.forEach((i, k) => (answers[i] = next[k]));
    }
    const seconds = (performance.now() - started) / 1000;
    const pg = new Client({ connectionString: DATABASE_URL });
    await pg.connect();
    const [{ carried }] = (
      await pg.query(
        `SELECT count(*)::int AS carried FROM "${a.schema}".bookings WHERE event_id = $1 AND status = 'CONFIRMED' AND promo_code = 'FIFTY'`,
        [eventId],
      )
    ).rows as { carried: number }[];
    const [{ uses }] = (await pg.query(`SELECT uses FROM "${a.schema}".promo_codes WHERE code = 'FIFTY'`))
      .rows as {
      uses: number;
    }[];
    await pg.end();
    const finals = new Map<string, number>();
    answers.forEach((s) => finals.set(s, (finals.get(s) ?? 0) + 1));
    const fmt = (m: Map<string, number>) => [...m].map(([s, n]) => `${s} ×${n}`).join(', ');
    return (
      `## The promo race: maxUses ${RACE_MAX_USES}, ${RACE_HOLDS} confirms racing on two instances\n\n` +
      table(
        ['figure', 'value'],
        [
          ['first answers', fmt(firstAnswers)],
          ['503 answers retried with the same orderId', retried],
          ['final answers', fmt(finals)],
          [
            'bookings carrying the code',
            `${carried} (target exactly ${RACE_MAX_USES}: ${carried === RACE_MAX_USES ? 'met' : 'not met'})`,
          ],
          ["the code's uses", uses],
          ['seconds, first confirm to last answer', seconds.toFixed(2)],
        ],
      )
    );
  } finally {
    await b.stop();
  }
}

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const client = new Redis(redis.url);
  const service = await startService('pricing', redis.url, { SEAT_LOCK_WAIT_MS: '5000' });
  try {
    const holds = await holdsSection(redis, client, service);
    const race = await raceSection(redis, service);
    console.log(`\n${holds}\n\n${race}`);
    const file = writeReport(
      'pricing',
      'Priced holds: with and without a price list, and the promo race',
      'npm run bench:pricing',
      [holds, race],
    );
    console.log(`report: ${file}`);
  } finally {
    await service.stop();
    client.disconnect();
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
