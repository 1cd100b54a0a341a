/**
 * Expiry to Kafka, through the real service: its sweeper and outbox
 * relay at their default periods (sweep 1 s, relay 200 ms), the local Kafka broker, and an independent
 * consumer (its own group) that timestamps every SeatExpired as it arrives.
 *   1. latency: 2,000 holds whose expireAt is spread over 20 s; distribution of arrival - expireAt
 *   2. 100,000 holds due in the same second, spread over 1,000 events: time from expireAt until the last
 *      SeatExpired arrives, one service instance on a single Redis and one on the local 3-master Redis
 *      Cluster (scripts/infra.sh cluster, BENCH_CLUSTER_PORT, default 7301..7307), rounds in the order
 *      single, cluster, cluster, single (BENCH_ROUNDS=2 pairs) so drift of the machine's load weighs on
 *      both; target cluster / single <= 1.0 (and each <= 10 s)
 * Holds are written straight into the service's hold store (the same Lua script the API runs), because
 * creating 100,000 holds over HTTP would take longer than the expiry being measured.
 * Each run also reports when the last seat was freed (the sweep's end, CloudEvent time) and the CPU the
 * service, Redis (every node) and the broker used until the last arrival. The single Redis has no
 * persistence while the cluster's nodes write append-only files and feed replicas (about twice the Redis
 * CPU for the same sweep); BENCH_SINGLE_AOF=1 gives the single Redis an append-only file too.
 * Needs the local Kafka (`npm run infra:up`). Run: npm run bench:expiry   (BENCH_DUE, BENCH_DUE_EVENTS,
 * BENCH_ROUNDS, BENCH_SINGLE_AOF, BENCH_REDIS_STATS, BENCH_PROFILE)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { loadConfig } from '@app/config';
import { ensureTopics } from '@app/kafka';
import { DistributedLockService } from '@app/distributed-lock';
import { connectRedis, createRedisClient } from '@app/redis';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';
import { startPrivateRedis } from '../../test/support/private-redis';
import { cpuMsOfInfo, processCpuMs, redisCpuMs } from '../support/cpu-time';
import { repoRoot } from '../support/child';
import { LocalCluster } from '../support/local-cluster';
import { BenchService, seatId, startService } from '../support/service';
import { table, writeReport } from '../support/report';

const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const DUE = Number(process.env.BENCH_DUE ?? 100_000);
const DUE_EVENTS = Number(process.env.BENCH_DUE_EVENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CLUSTER_PORT = Number(process.env.BENCH_CLUSTER_PORT ?? 7301);
const SPREAD_HOLDS = 2000;

/** Every SeatExpired that reaches the topic: when it arrived, and when its hold was due. */
class Arrivals {
  readonly byEvent = new Map<
    string,
    { arrivedAt: number; expireAt: number; createdAt: number; freedAt: number }[]
  >();

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
        const ce = JSON.parse(m.value!.toString()) as {
          time: string;
          data: { eventId: string; expireAt: string };
        };
        const list = arrivals.byEvent.get(ce.data.eventId) ?? [];
        list.push({
          arrivedAt,
          expireAt: Date.parse(ce.data.expireAt),
          createdAt: Number(m.timestamp),
          // CloudEvent time: when the sweep script freed the seat (Redis time), so the sweep's end
          freedAt: Date.parse(ce.time),
        });
        arrivals.byEvent.set(ce.data.eventId, list);
      }
      await Promise.resolve();
    },
  });
  return consumer;
}

/**
 * Writes `holds` single-seat holds, due at `expireAt(i)` (ms since the epoch), dealt round the events:
 * hold i takes seat i / events of event i % events.
 */
async function fill(store: HoldStore, events: string[], holds: number, expireAt: (i: number) => number) {
  const chunk = 2000;
  for (let start = 0; start < holds; start += chunk) {
    const calls: Promise<unknown>[] = [];
    for (let i = start; i < Math.min(holds, start + chunk); i++) {
      const eventId = events[i % events.length];
      calls.push(
        store
          .createHold({
            eventId,
            holdId: HoldIds.generate(eventId),
            userId: `user-${i}`,
            seatIds: [seatId(Math.floor(i / events.length))],
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

/** The local broker's pid (scripts/infra.sh's pid file), if it runs from this checkout. */
function kafkaPid(): number | undefined {
  const file = path.join(process.env.INFRA_DIR ?? path.join(repoRoot, '.infra'), 'kafka', 'kafka.pid');
  const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : NaN;
  return Number.isInteger(pid) && existsSync(`/proc/${pid}/stat`) ? pid : undefined;
}

/** Per node: role, CPU s and the commands that took the most time between two INFO snapshots. */
function printStatsDelta(side: string, before: string[], after: string[]): void {
  const usec = (info: string) =>
    new Map([...info.matchAll(/^cmdstat_(\w+):calls=(\d+),usec=(\d+)/gm)].map((m) => [m[1], [+m[2], +m[3]]]));
  after.forEach((info, n) => {
    const was = usec(before[n]);
    const top = [...usec(info)]
      .map(
        ([cmd, [calls, us]]) =>
          [cmd, calls - (was.get(cmd)?.[0] ?? 0), us - (was.get(cmd)?.[1] ?? 0)] as const,
      )
      .filter(([, calls]) => calls > 0)
      .sort((a, b) => b[2] - a[2])
      .slice(0, 6)
      .map(([cmd, calls, us]) => `${cmd} ${calls}x ${(us / 1e6).toFixed(2)}s`);
    const role = /^role:(\w+)/m.exec(info)?.[1];
    const cpu = (cpuMsOfInfo(info) - cpuMsOfInfo(before[n])) / 1000;
    console.log(`  ${side} node ${n} (${role}): CPU ${cpu.toFixed(2)} s; ${top.join(', ')}`);
  });
}

/** One service instance and the hold store it uses, on a single Redis or on the cluster. */
interface Side {
  name: string;
  /** CPU ms used so far by the Redis server(s) of this side (every node of the cluster) */
  redisCpu: () => Promise<number>;
  /** INFO cpu + commandstats of every node (BENCH_REDIS_STATS=1: where Redis spends a run, on the console) */
  redisStats: () => Promise<string[]>;
  service: BenchService;
  store: HoldStore;
  events: string[];
  /** seconds from expireAt until the last SeatExpired arrived, per round */
  lastArrived: number[];
  rows: (string | number)[][];
}

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  // BENCH_SINGLE_AOF=1: the single Redis with an append-only file (fsync every second) like the cluster's
  // nodes, so the two sides pay the same persistence (the cluster's replicas remain its own cost)
  const aofDir = process.env.BENCH_SINGLE_AOF ? mkdtempSync(path.join(tmpdir(), 'bench-expiry-aof-')) : '';
  const redis = await startPrivateRedis(
    aofDir ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', aofDir] : [],
  );
  const cluster = await LocalCluster.start(CLUSTER_PORT);
  const clusterPrefix = `bench_expiry_${Date.now().toString(36)}:`; // this run's keys on a cluster that may outlive it
  const arrivals = new Arrivals();
  const sections: string[] = [];
  const services: BenchService[] = [];
  const probes: Awaited<ReturnType<typeof startProbe>>[] = [];
  const client = new Redis(redis.url, { keyPrefix: 'svc:' });
  const clusterConfig = loadConfig({
    AUTH_JWT_SECRET: 'unused-0123456789abcdef',
    ...cluster.serviceEnv,
    REDIS_KEY_PREFIX: clusterPrefix,
  });
  const clusterClient = createRedisClient({ ...clusterConfig.redis, name: 'bench-fill' });
  try {
    const service = await startService('expiry', redis.url, { SWEEPER_ENABLED: 'true' });
    services.push(service);
    const onCluster = await startService('expiry_cluster', '', {
      ...cluster.serviceEnv,
      REDIS_KEY_PREFIX: clusterPrefix,
      SWEEPER_ENABLED: 'true',
    });
    services.push(onCluster);
    for (const s of services) {
      probes.push(await startProbe(s.topic, arrivals));
    }
    await connectRedis(clusterClient);
    const store = new HoldStore(
      client,
      loadConfig({ AUTH_JWT_SECRET: 'unused-0123456789abcdef', REDIS_URL: redis.url }),
      new DistributedLockService({ redis: client }),
    );
    const clusterStore = new HoldStore(
      clusterClient as unknown as Redis,
      clusterConfig,
      new DistributedLockService({ redis: clusterClient as unknown as Redis }),
    );
    /** `n` events of `seats` seats, 8 created at a time */
    const eventsOf = async (svc: BenchService, n: number, seats: number) => {
      const ids: string[] = [];
      const worker = async () => {
        while (ids.length < n) {
          const slot = ids.push('') - 1; // claimed before the await, so the workers create exactly n
          ids[slot] = await svc.createEvent(seats);
        }
      };
      await Promise.all(Array.from({ length: Math.min(8, n) }, worker));
      return ids;
    };

    // 1. latency with the default sweep period: expireAt spread over 20 s
    const spreadEvents = await eventsOf(service, 1, SPREAD_HOLDS);
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
      `## 1. Expiry latency (default SWEEP_INTERVAL_MS=1000, OUTBOX_RELAY_INTERVAL_MS=200, single Redis)`,
      '',
      t1,
      '',
    );

    // 2. DUE holds due in the same second over DUE_EVENTS events: single Redis vs the cluster
    const seatsPerEvent = Math.ceil(DUE / DUE_EVENTS);
    const created = Date.now();
    const sides: Side[] = [
      {
        name: 'single Redis',
        redisCpu: () => redisCpuMs(redis.client),
        redisStats: async () => [await redis.client.info('everything')],
        service,
        store,
        events: [],
        lastArrived: [],
        rows: [],
      },
      {
        name: 'cluster',
        redisCpu: async () => (await cluster.infoOfNodes('cpu')).reduce((ms, i) => ms + cpuMsOfInfo(i), 0),
        redisStats: () => cluster.infoOfNodes('everything'),
        service: onCluster,
        store: clusterStore,
        events: [],
        lastArrived: [],
        rows: [],
      },
    ];
    for (const side of sides) {
      // the seats are free again once a round's holds expired: every round reuses them
      side.events = await eventsOf(side.service, DUE_EVENTS, seatsPerEvent);
    }
    console.log(`created 2 × ${DUE_EVENTS} events in ${((Date.now() - created) / 1000).toFixed(0)} s`);
    const fillMs = [DUE / 4, DUE / 2]; // per side: a first guess, then the side's last fill
    const order = Array.from({ length: ROUNDS }, (_, r) => (r % 2 === 0 ? [0, 1] : [1, 0])).flat();
    for (const [n, which] of order.entries()) {
      const side = sides[which];
      const before = arrivals.count(side.events);
      // time to write them all first; whole ms: a fractional ttl reaches the store's scripts as is (see the report)
      const dueAt = Math.round(Date.now() + fillMs[which] * 1.5 + 5000);
      const fillStarted = Date.now();
      await fill(side.store, side.events, DUE, () => dueAt);
      const fillEnded = Date.now();
      fillMs[which] = fillEnded - fillStarted;
      console.log(
        `${side.name}: wrote ${DUE} holds in ${(fillMs[which] / 1000).toFixed(1)} s; due in ${((dueAt - fillEnded) / 1000).toFixed(1)} s`,
      );
      const profiled = process.env.BENCH_PROFILE ? side.service.child.proc : undefined;
      await new Promise((r) => setTimeout(r, Math.max(0, dueAt - Date.now())));
      profiled?.kill('SIGWINCH'); // profile the service from the due time ...
      // CPU from the due time until the last SeatExpired arrived: on 2 shared cores, who used them
      const broker = kafkaPid();
      const cpuOf = async () => [
        processCpuMs(side.service.child.proc.pid!),
        await side.redisCpu(),
        broker ? processCpuMs(broker) : NaN,
      ];
      const cpuAtDue = await cpuOf();
      const statsAtDue = process.env.BENCH_REDIS_STATS ? await side.redisStats() : undefined;
      await until(
        `${DUE} expiries on the topic (${side.name})`,
        () => arrivals.count(side.events) - before >= DUE,
        dueAt - Date.now() + 180_000,
      );
      profiled?.kill('SIGWINCH'); // ... until the last SeatExpired arrived
      const cpu = (await cpuOf()).map((ms, i) => (ms - cpuAtDue[i]) / 1000);
      if (statsAtDue) {
        printStatsDelta(side.name, statsAtDue, await side.redisStats());
      }
      // this round's: earlier rounds on these events were due minutes before
      const due = arrivals.of(side.events).filter((a) => Math.abs(a.expireAt - dueAt) < 5000);
      const after = (ms: number) => (ms - dueAt) / 1000;
      const lastFreed = due.reduce((m, a) => Math.max(m, a.freedAt), 0);
      const lastSent = due.reduce((m, a) => Math.max(m, a.createdAt), 0);
      const lastArrived = due.reduce((m, a) => Math.max(m, a.arrivedAt), 0);
      const firstArrived = due.reduce((m, a) => Math.min(m, a.arrivedAt), Infinity);
      side.lastArrived.push(after(lastArrived));
      side.rows.push([
        `${side.name} (run ${n + 1})`,
        DUE,
        due.length,
        `${after(firstArrived).toFixed(2)} s`,
        `${after(lastFreed).toFixed(2)} s`,
        `${after(lastSent).toFixed(2)} s`,
        `**${after(lastArrived).toFixed(2)} s**`,
        cpu.map((sec) => (Number.isNaN(sec) ? '–' : sec.toFixed(1))).join(' / '),
        fillEnded < dueAt ? 'yes' : 'NO: late holds, run invalid',
        loadavg()[0].toFixed(2),
      ]);
      console.log(side.rows.at(-1)!.join('  '));
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const [single, many] = sides.map((s) => mean(s.lastArrived));
    const ratio = many / single;
    const t2 = table(
      [
        'run',
        'holds due',
        'SeatExpired received',
        'first arrived',
        'last freed (sweep, CloudEvent time)',
        'last sent (producer timestamp)',
        'last arrived',
        'CPU s until then: service / Redis (all nodes) / Kafka broker',
        'all written before due',
        'load average (1 min)',
      ],
      order.map((which, n) => sides[which].rows[Math.floor(n / 2)]),
    );
    const summary = [
      `last SeatExpired arrived after expireAt, mean of ${ROUNDS} run(s) each: single Redis ${single.toFixed(2)} s, cluster ${many.toFixed(2)} s`,
      `cluster / single = ${ratio.toFixed(2)} (target <= 1.0: ${ratio <= 1 ? 'met' : 'NOT met'}); each <= 10 s: ${Math.max(single, many) <= 10 ? 'met' : 'NOT met'}`,
      `load average (1 / 5 / 15 min) at the start of the bench: ${loadAtStart.map((l) => l.toFixed(2)).join(' / ')}`,
    ];
    console.log(
      `\n2. ${DUE} holds due in the same second over ${DUE_EVENTS} events\n${t2}\n${summary.join('\n')}`,
    );
    sections.push(
      `## 2. ${DUE} holds due in the same second over ${DUE_EVENTS} events: single Redis vs 3-master cluster (one service instance each; times after expireAt)`,
      '',
      t2,
      '',
      ...summary.map((l) => `- ${l}`),
      '',
    );
  } finally {
    await Promise.all(probes.map((p) => p.disconnect()));
    await Promise.all(services.map((s) => s.stop()));
    client.disconnect();
    clusterClient.disconnect();
    await redis.stop();
    if (aofDir) {
      rmSync(aofDir, { recursive: true, force: true });
    }
    await cluster.destroy();
  }
  const file = writeReport('expiry', 'Expiry to Kafka', 'npm run bench:expiry', sections);
  console.log(`\nreport: ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
