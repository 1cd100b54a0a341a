/**
 * The waiting list's targets, through the real apps: the seat API (child process, private Redis), one
 * apps/waitlist instance, the local Kafka broker and PostgreSQL. The seat.status topic appends with the
 * broker's clock, so a freed seat's message and its WaitlistOfferMade are timed by one clock.
 *
 * 1. a trickle of single freed seats (one show each, one waiting entry): freeing record's append time to
 *    the WaitlistOfferMade record's append time (the offer is stored and announced by then);
 * 2. a burst: BURST_SHOWS shows of 10 seats with 100 waiting entries each (10,000 entries), their 1,000
 *    seats released in one send: time to the last offer, offers per freed seat, seats in two offers, and
 *    whether each show's offers went to the first 10 of its queue;
 * 3. seat API holds/s (uncontended holds of other shows, 32 connections) while the waiting list works
 *    through 500 freed seats vs while it idles, BUSY_ROUNDS busy rounds between idle ones (medians).
 * Run: npm run bench:waitlist   (BENCH_TRICKLE 60, BENCH_BURST_SHOWS 100, BENCH_SECONDS 5, BENCH_BUSY_ROUNDS 4)
 */
import 'reflect-metadata';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { Client } from 'pg';
import { WAITLIST_OFFER_MADE_TYPE } from '@app/contracts';
import { startPrivateRedis } from '../../test/support/private-redis';
import { FreshSeats, holdRequest, holdsPerSecond, newEvents, type Target } from '../http/hold-load';
import { load } from '../support/load';
import { spawnTs } from '../support/child';
import { table, writeReport } from '../support/report';
import { BENCH_SECRET, BenchService, DATABASE_URL, startService } from '../support/service';
import { createAppendTimeTopic, releaseMessage, soldOutShows, topicReader, type Show } from './shows';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const TRICKLE = Number(process.env.BENCH_TRICKLE ?? 60);
const BURST_SHOWS = Number(process.env.BENCH_BURST_SHOWS ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BUSY_ROUNDS = Number(process.env.BENCH_BUSY_ROUNDS ?? 4);
const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const PARTITIONS = 6;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}
/** CPU seconds the whole machine has been busy (every process, all cores: /proc/stat less idle and iowait). */
function machineCpuSeconds(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return (ticks.reduce((a, b) => a + b, 0) - ticks[3] - ticks[4]) / 100;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx {
  svc: BenchService;
  pg: Client;
  producer: Producer;
  topic: string;
  reader: Awaited<ReturnType<typeof topicReader>>;
  waitlistPid: number;
}

interface OfferRow {
  source_event_id: string;
  hold_id: string;
  entry_id: string;
  event_id: string;
  seat_ids: string[];
}

async function offersOf(c: Ctx, shows: Show[]): Promise<OfferRow[]> {
  const { rows } = await c.pg.query(
    `SELECT o.source_event_id, o.hold_id, o.entry_id, e.event_id, o.seat_ids FROM "${c.svc.schema}".waitlist_offers o
       JOIN "${c.svc.schema}".waitlist_entries e ON e.id = o.entry_id WHERE e.event_id = ANY($1::uuid[])`,
    [shows.map((s) => s.eventId)],
  );
  return rows as OfferRow[];
}

/** Waits until `expected` offers of the shows are announced on Kafka (or `limitMs` passed). */
async function announced(c: Ctx, shows: Show[], expected: number, limitMs: number) {
  const until = Date.now() + limitMs;
  for (;;) {
    const offers = await offersOf(c, shows);
    const made = new Map(
      c.reader.records.filter((r) => r.type === WAITLIST_OFFER_MADE_TYPE).map((r) => [r.holdId, r.at]),
    );
    if ((offers.length >= expected && offers.every((o) => made.has(o.hold_id))) || Date.now() > until) {
      const freedAt = new Map(c.reader.records.map((r) => [r.id, r.at]));
      return offers.map((o) => ({
        ...o,
        freedAt: freedAt.get(o.source_event_id)!,
        madeAt: made.get(o.hold_id),
      }));
    }
    await sleep(100);
  }
}

async function trickle(c: Ctx) {
  const shows = await soldOutShows(c.svc, TRICKLE, 1, 1);
  for (const show of shows) {
    await c.producer.send({ topic: c.topic, acks: -1, messages: [releaseMessage(show.seats[0])] });
    await sleep(150);
  }
  const offers = await announced(c, shows, shows.length, 60_000);
  const latencies = offers
    .filter((o) => o.madeAt !== undefined)
    .map((o) => o.madeAt! - o.freedAt)
    .sort((a, b) => a - b);
  return {
    freed: shows.length,
    offers: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function burst(c: Ctx) {
  const shows = await soldOutShows(c.svc, BURST_SHOWS, 10, 100);
  const seats = shows.flatMap((s) => s.seats);
  const cpu = [cpuSeconds(c.waitlistPid), cpuSeconds(c.svc.child.proc.pid!), machineCpuSeconds()];
  // BENCH_PROFILE=1: CPU profiles of apps/waitlist and the seat API during the burst (cpu-profile.js)
  const profile = () =>
    process.env.BENCH_PROFILE &&
    [c.waitlistPid, c.svc.child.proc.pid!].forEach((pid) => process.kill(pid, 'SIGWINCH'));
  profile();
  await c.producer.send({ topic: c.topic, acks: -1, messages: seats.map(releaseMessage) });
  const offers = await announced(c, shows, seats.length, 120_000);
  profile();
  // what one offer costs each process, the polling of the wait included (the same in both)
  const cpuPerOffer = [
    ((cpuSeconds(c.waitlistPid) - cpu[0]) * 1000) / offers.length,
    ((cpuSeconds(c.svc.child.proc.pid!) - cpu[1]) * 1000) / offers.length,
    ((machineCpuSeconds() - cpu[2]) * 1000) / offers.length,
  ];
  const firstFreed = Math.min(...offers.map((o) => o.freedAt));
  const lastMade = Math.max(...offers.map((o) => o.madeAt ?? Infinity));
  const offeredSeats = offers.flatMap((o) => o.seat_ids.map((s) => `${o.event_id}/${s}`));
  const twice = offeredSeats.length - new Set(offeredSeats).size;
  // the fitting entries: each show's first 10 in queue order (10 freed seats, parties of one)
  const { rows } = await c.pg.query(
    `SELECT count(*)::int AS n FROM (
       SELECT id, status, row_number() OVER (PARTITION BY event_id ORDER BY created_at, id) AS place
         FROM "${c.svc.schema}".waitlist_entries WHERE event_id = ANY($1::uuid[])) q
      WHERE (place <= 10) <> (status = 'OFFERED')`,
    [shows.map((s) => s.eventId)],
  );
  return {
    entries: shows.length * 100,
    freed: seats.length,
    offers: offers.length,
    lastAfterMs: lastMade - firstFreed,
    perSeat: offeredSeats.length / seats.length,
    twice,
    misplaced: (rows as { n: number }[])[0].n,
    cpuPerOffer,
  };
}

async function holdsBusyVsIdle(c: Ctx) {
  const target: Target = {
    name: 'seat-api',
    base: c.svc.base,
    auth: () => ({}),
    newEvent: (n) => c.svc.createEvent(n),
  };
  const tokens = await Promise.all(Array.from({ length: 5000 }, (_, i) => c.svc.token(100_000 + i)));
  target.auth = (user) => ({ authorization: `Bearer ${tokens[user % tokens.length]}` });
  // one supply of free seats for every round: a round that met seats an earlier one held would count 409s
  // enough for 2 * BUSY_ROUNDS + 1 rounds of a few thousand holds a second
  const events = Number(process.env.BENCH_HOLD_EVENTS ?? 6 * (2 * BUSY_ROUNDS + 1));
  const seats = new FreshSeats(await newEvents(target, events));
  let user = 0;
  const holdsFor = async () => {
    const r = await load({
      url: c.svc.base,
      connections: 32,
      durationSeconds: SECONDS,
      next: () => {
        const { eventId, seatIds } = seats.next();
        return holdRequest(target, user++, eventId, seatIds);
      },
    });
    if (seats.ranOut) {
      throw new Error('the hold load ran out of free seats: raise BENCH_HOLD_EVENTS');
    }
    return holdsPerSecond(r);
  };
  const bursts = [];
  for (let r = 0; r < BUSY_ROUNDS; r++) {
    bursts.push(await soldOutShows(c.svc, 50, 10, 10));
  }
  const idle: number[] = [];
  const busy: number[] = [];
  let inWindow = 0;
  idle.push(await holdsFor());
  for (const shows of bursts) {
    const seats = shows.flatMap((s) => s.seats);
    await c.producer.send({ topic: c.topic, acks: -1, messages: seats.map(releaseMessage) });
    busy.push(await holdsFor());
    inWindow += (await offersOf(c, shows)).length;
    // idle again: every offer of the burst made before the next idle round
    await announced(c, shows, seats.length, 120_000);
    idle.push(await holdsFor());
  }
  return { idle, busy, inWindow, freed: bursts.flat().length * 10 };
}

async function main() {
  const redis = await startPrivateRedis();
  const svc = await startService('waitlist', redis.url, { RATE_LIMIT_ENABLED: 'false' });
  const pg = new Client({ connectionString: DATABASE_URL });
  await pg.connect();
  const kafka = new Kafka({ clientId: 'bench-waitlist', brokers: BROKERS, logLevel: logLevel.NOTHING });
  const topic = `${svc.schema}.waitlist`;
  await createAppendTimeTopic(kafka, topic, PARTITIONS);
  const reader = await topicReader(kafka, topic);
  const producer = kafka.producer();
  await producer.connect();
  const waitlist = spawnTs(
    'apps/waitlist/src/main.ts',
    {
      AUTH_JWT_SECRET: BENCH_SECRET,
      DATABASE_URL,
      DATABASE_SCHEMA: svc.schema,
      KAFKA_TOPIC_SEAT_STATUS: topic,
      WAITLIST_CONSUMER_GROUP: `${topic}.group`,
      WAITLIST_SEAT_API_URL: svc.base,
      WAITLIST_PORT: '0',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
    path.resolve(__dirname, '..', 'results', 'waitlist-app.log.tmp'),
  );
  try {
    const admin = kafka.admin();
    await admin.connect();
    for (;;) {
      const {
        groups: [{ members, state }],
      } = await admin.describeGroups([`${topic}.group`]);
      if (state === 'Stable' && members.length === 1) {
        break;
      }
      await sleep(200);
    }
    await admin.disconnect();
    const c: Ctx = { svc, pg, producer, topic, reader, waitlistPid: waitlist.proc.pid! };
    // BENCH_ONLY=burst (or trickle, holds): that scenario alone, while looking into it
    const only = process.env.BENCH_ONLY;
    const t = !only || only === 'trickle' ? await trickle(c) : { freed: 0, offers: 0, p50: 0, p99: 0 };
    const b =
      !only || only === 'burst'
        ? await burst(c)
        : {
            entries: 0,
            freed: 0,
            offers: 0,
            lastAfterMs: 0,
            perSeat: 0,
            twice: 0,
            misplaced: 0,
            cpuPerOffer: [0, 0, 0],
          };
    const h =
      !only || only === 'holds' ? await holdsBusyVsIdle(c) : { idle: [0], busy: [0], inWindow: 0, freed: 0 };
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((x, y) => x - y);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    };
    const ratio = median(h.busy) / median(h.idle);
    const report = [
      'One apps/waitlist instance, the seat API, Redis, PostgreSQL and Kafka on the same 2 cores. Times are',
      "Kafka append times (the topic's LogAppendTime): a freeing record's to its WaitlistOfferMade record's.",
      '',
      table(
        ['figure', 'measured', 'target', 'met'],
        [
          [
            `freed seat -> offer, a trickle of ${t.freed} single seats (150 ms apart): p50 / p99`,
            `${t.p50} / ${t.p99} ms (${t.offers} offers)`,
            'p99 <= 1000 ms',
            t.p99 <= 1000 && t.offers === t.freed ? 'yes' : 'NO',
          ],
          [
            `${b.entries} waiting entries, ${b.freed} seats freed in one send: last offer after`,
            `${(b.lastAfterMs / 1000).toFixed(2)} s (${b.offers} offers)`,
            '<= 10 s',
            b.lastAfterMs <= 10_000 && b.offers === b.freed ? 'yes' : 'NO',
          ],
          [
            '  CPU per offer during the burst: apps/waitlist / seat API / the whole machine',
            `${b.cpuPerOffer[0].toFixed(2)} / ${b.cpuPerOffer[1].toFixed(2)} / ${b.cpuPerOffer[2].toFixed(2)} ms`,
            '',
            '',
          ],
          ['  offers per freed seat', b.perSeat.toFixed(3), '1.0', b.perSeat === 1 ? 'yes' : 'NO'],
          ['  seats in two offers', b.twice, '0', b.twice === 0 ? 'yes' : 'NO'],
          [
            '  entries offered out of queue order (offered past place 10, or not offered within it)',
            b.misplaced,
            '0',
            b.misplaced === 0 ? 'yes' : 'NO',
          ],
          [
            `seat API holds/s, waiting list busy vs idle (${SECONDS} s rounds, idle and busy interleaved)`,
            `idle ${h.idle.join(', ')}; busy ${h.busy.join(', ')}: ${ratio.toFixed(2)}x (medians; ${h.inWindow} of ${h.freed} offers made in the busy rounds)`,
            '>= 0.9x',
            ratio >= 0.9 ? 'yes' : 'NO',
          ],
        ],
      ),
    ];
    console.log(report.join('\n'));
    if (!only) {
      // a partial run leaves the full run's report as it was
      console.log(
        `written to ${writeReport('waitlist', 'Waiting-list targets', 'npm run bench:waitlist', report)}`,
      );
    }
  } finally {
    await waitlist.stop();
    await producer.disconnect();
    await reader.stop();
    await pg.end();
    await svc.stop();
    await redis.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
