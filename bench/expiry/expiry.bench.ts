/**
 * Expiry to Kafka (issue #6 items 3 and 4), through the real service: its sweeper and outbox relay at
 * their default periods (sweep 1 s, relay 200 ms), the local Kafka broker, and an independent consumer
 * (its own group) that timestamps every SeatExpired as it arrives.
 *   1. latency: 2,000 holds whose expireAt is spread over 20 s; distribution of arrival - expireAt
 *   2. 100,000 holds due in the same second: time from expireAt until the last SeatExpired arrives
 * Holds are written straight into the service's hold store (the same Lua script the API runs), because
 * creating 100,000 holds over HTTP would take longer than the expiry being measured.
 * Needs the local Kafka (`npm run infra:up`). Run: npm run bench:expiry
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { loadConfig } from '@app/config';
import { ensureTopics } from '@app/kafka';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { BenchService, seatId, startService } from '../support/service';
import { table, writeReport } from '../support/report';

const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const DUE = Number(process.env.BENCH_DUE ?? 100_000);
const SPREAD_HOLDS = 2000;
const SEATS_PER_EVENT = 10_000;

/** Every SeatExpired that reaches the topic: when it arrived, and when its hold was due. */
class Arrivals {
  readonly byEvent = new Map<string, { arrivedAt: number; expireAt: number; createdAt: number }[]>();

  count(events: string[]): number {
    return events.reduce((n, e) => n + (this.byEvent.get(e)?.length ?? 0), 0);
  }

  of(events: string[]) {
    return events.flatMap((e) => this.byEvent.get(e) ?? []);
  }
}

async function startProbe(topic: string, arrivals: Arrivals) {
  const kafka = new Kafka({ clientId: 'bench-probe', brokers: BROKERS, logLevel: logLevel.NOTHING });
  await ensureTopics(kafka, [topic], 6); // the service creates it too; whoever is first wins
  const consumer = kafka.consumer({ groupId: `bench-probe-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      const arrivedAt = Date.now();
      for (const m of batch.messages) {
        const ce = JSON.parse(m.value!.toString()) as { data: { eventId: string; expireAt: string } };
        const list = arrivals.byEvent.get(ce.data.eventId) ?? [];
        list.push({ arrivedAt, expireAt: Date.parse(ce.data.expireAt), createdAt: Number(m.timestamp) });
        arrivals.byEvent.set(ce.data.eventId, list);
      }
      await Promise.resolve();
    },
  });
  return consumer;
}

/** Writes one single-seat hold per seat index, due at `expireAt(i)` (ms since the epoch). */
async function fill(store: HoldStore, events: string[], holds: number, expireAt: (i: number) => number) {
  const chunk = 2000;
  for (let start = 0; start < holds; start += chunk) {
    const calls: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(holds, start + chunk); i++) {
      const eventId = events[Math.floor(i / SEATS_PER_EVENT)];
      calls.push(
        store
          .createHold({
            eventId,
            holdId: HoldIds.generate(eventId),
            userId: `user-${i}`,
            seatIds: [seatId(i % SEATS_PER_EVENT)],
            ttlMs: Math.max(1, expireAt(i) - Date.now()),
            maxLifetimeMs: 7_200_000,
            maxSeatsPerUser: 10,
            fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
          })
          .then((r) => {
            if (!r.ok) {
              throw new Error(`fill failed: ${r.error}`);
            }
          }),
      );
    }
    await Promise.all(calls);
  }
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const arrivals = new Arrivals();
  const sections: string[] = [];
  let service: BenchService | undefined;
  let probe: Awaited<ReturnType<typeof startProbe>> | undefined;
  const client = new Redis(redis.url, { keyPrefix: 'svc:' });
  try {
    service = await startService('expiry', redis.url, { SWEEPER_ENABLED: 'true' });
    probe = await startProbe(service.topic, arrivals);
    const store = new HoldStore(
      client,
      loadConfig({ AUTH_JWT_SECRET: 'unused-0123456789abcdef', REDIS_URL: redis.url }),
      new DistributedLockService({ redis: client }),
    );
    const svc = service;
    const eventsOf = (n: number) =>
      Promise.all(Array.from({ length: n }, () => svc.createEvent(SEATS_PER_EVENT)));

    // 1. latency with the default sweep period: expireAt spread over 20 s
    const spreadEvents = await eventsOf(1);
    const from = Date.now() + 3000;
    await fill(store, spreadEvents, SPREAD_HOLDS, (i) => from + (i * 20_000) / SPREAD_HOLDS);
    await until(
      '2,000 spread expiries on the topic',
      () => arrivals.count(spreadEvents) >= SPREAD_HOLDS,
      90_000,
    );
    const lat = arrivals.of(spreadEvents);
    const arrival = lat.map((a) => a.arrivedAt - a.expireAt).sort((a, b) => a - b);
    const produced = lat.map((a) => a.createdAt - a.expireAt).sort((a, b) => a - b);
    const t1 = table(
      ['measured', 'holds', 'p50 ms', 'p99 ms', 'max ms'],
      [
        [
          'sent to Kafka (producer timestamp) − expireAt',
          produced.length,
          pct(produced, 50),
          pct(produced, 99),
          produced.at(-1)!,
        ],
        [
          'received by the probe − expireAt',
          arrival.length,
          pct(arrival, 50),
          pct(arrival, 99),
          arrival.at(-1)!,
        ],
      ],
    );
    console.log(
      `\n1. Expiry latency, default sweep 1 s / relay 200 ms, ${SPREAD_HOLDS} holds over 20 s\n${t1}`,
    );
    sections.push(
      `## 1. Expiry latency (default SWEEP_INTERVAL_MS=1000, OUTBOX_RELAY_INTERVAL_MS=200)`,
      '',
      t1,
      '',
    );

    // 2. DUE holds due in the same second
    const dueEvents = await eventsOf(Math.ceil(DUE / SEATS_PER_EVENT));
    const dueAt = Date.now() + 15_000 + DUE / 4; // time to write them all first
    const fillStarted = Date.now();
    await fill(store, dueEvents, DUE, () => dueAt);
    console.log(
      `wrote ${DUE} holds in ${((Date.now() - fillStarted) / 1000).toFixed(1)} s; due in ${((dueAt - Date.now()) / 1000).toFixed(1)} s`,
    );
    const profiled = process.env.BENCH_PROFILE ? service.child.proc : undefined;
    await new Promise((r) => setTimeout(r, Math.max(0, dueAt - Date.now())));
    profiled?.kill('SIGWINCH'); // profile the service from the due time ...
    await until(
      `${DUE} expiries on the topic`,
      () => arrivals.count(dueEvents) >= DUE,
      dueAt - Date.now() + 120_000,
    );
    profiled?.kill('SIGWINCH'); // ... until the last SeatExpired arrived
    const due = arrivals.of(dueEvents);
    const after = (ms: number) => `${((ms - dueAt) / 1000).toFixed(2)} s`;
    const lastSent = due.reduce((m, a) => Math.max(m, a.createdAt), 0);
    const lastArrived = due.reduce((m, a) => Math.max(m, a.arrivedAt), 0);
    const firstArrived = due.reduce((m, a) => Math.min(m, a.arrivedAt), Infinity);
    const t2 = table(
      [
        'holds due',
        'SeatExpired received',
        'first arrived',
        'last sent (producer timestamp)',
        'last arrived',
        'target',
      ],
      [[DUE, due.length, after(firstArrived), after(lastSent), after(lastArrived), '≤ 10 s']],
    );
    console.log(`\n2. ${DUE} holds due in the same second\n${t2}`);
    sections.push(
      `## 2. ${DUE} holds due in the same second (one service instance; times after expireAt)`,
      '',
      t2,
      '',
    );
  } finally {
    await probe?.disconnect();
    await service?.stop();
    client.disconnect();
    await redis.stop();
  }
  const file = writeReport('expiry', 'Expiry to Kafka', 'npm run bench:expiry', sections);
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
