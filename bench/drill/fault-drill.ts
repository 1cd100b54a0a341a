/**
 * Fault drill: seat-api instances and two expiry consumers on one
 * Redis (or Redis Cluster), one PostgreSQL schema and a private Kafka broker, under flash-sale load (holds
 * of 1-3 s, releases, confirms). Faults, one after the other, each followed by a check that the instances
 * recovered:
 *   1. kill -9 one seat-api instance mid-load (then start a new one)
 *   2. Kafka stopped for 30 s, then started
 *   3. single Redis: Redis restarted on its append-only file;
 *      cluster: the master serving the drill's event killed with kill -9 mid-load, its replica promoted,
 *      then the node restarted on its append-only file (it rejoins as a replica)
 *   4. one instance paused (SIGSTOP) for 3 s, longer than the 1 s seat-lock lease, then resumed
 * At the end, with the load stopped and every hold expired: the invariants of invariants.ts, the
 * answers clients got (only 409, 422 and 503 with Retry-After as errors), and the counts.
 * Modes: single Redis, 2 seat-api instances (`npm run drill`); the local 3-master + 3-replica Redis Cluster
 * of scripts/infra.sh on DRILL_CLUSTER_PORT (default 7301..7307), 3 seat-api instances
 * (`npm run drill:cluster`, i.e. DRILL_REDIS=cluster). Both: a 6-partition SeatExpired topic.
 * Needs the Kafka jars (`npm run infra:up` once). DRILL_SECONDS=10 per phase.
 */
import 'reflect-metadata';
import { Kafka, logLevel } from 'kafkajs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../test/support/private-redis';
import { PrivateKafka } from '../../test/support/private-kafka';
import { Child, spawnTs, waitUntilUp } from '../support/child';
import { table } from '../support/report';
import { BENCH_SECRET, BenchService, DATABASE_URL, seatId, startService } from '../support/service';
import { LocalCluster, BenchRedis } from '../support/local-cluster';
import { writeDrillReport } from './drill-report';
import { AofRedis } from './drill-infra';
import { checkInvariants } from './invariants';
import { Counts, Instance, Shoppers } from './shoppers';
import { DRILL_LAYOUT } from './invariants';

const CLUSTER = process.env.DRILL_REDIS === 'cluster';
const CLUSTER_PORT = Number(process.env.DRILL_CLUSTER_PORT ?? 7301);
const PHASE_MS = Number(process.env.DRILL_SECONDS ?? 10) * 1000;
const SHOPPERS = 150;
const SEATS = 5000;
const API_INSTANCES = CLUSTER ? 3 : 2;
const PARTITIONS = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => console.log(`[drill ${new Date().toISOString().slice(11, 19)}] ${m}`);

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) {
      return Date.now() - started;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    }
    await sleep(250);
  }
}

const ready = async (base: string) => (await fetch(`${base}/health`)).status === 200;

async function main(): Promise<void> {
  const schema = `drill_${Date.now().toString(36)}`;
  const prefix = `${schema}:`; // keys of this run only (a cluster that outlives the drill keeps them apart)
  const loadAtStart = loadavg();
  const redis: BenchRedis = CLUSTER ? await LocalCluster.start(CLUSTER_PORT) : await AofRedis.start();
  const kafka = await PrivateKafka.start();
  const env: Record<string, string> = {
    ...redis.serviceEnv,
    KAFKA_BROKERS: kafka.brokers,
    KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
    REDIS_KEY_PREFIX: prefix,
    KAFKA_CONSUMER_GROUP: `${schema}-history`,
    SWEEPER_ENABLED: 'true',
    HOLD_MIN_TTL_SECONDS: '1',
    SEAT_LOCK_LEASE_MS: '1000',
    OUTBOX_STALE_AFTER_MS: '6000', // /health calls an outbox whose oldest record waits 6 s not draining
    CONFIRM_TIMEOUT_MS: '3000', // a confirm cut off by kill -9 is settled by the reconciler after 3 s
    // on the cluster, holds are acknowledged once a replica has them (if the service knows the setting)
    ...(CLUSTER ? { REDIS_WAIT_REPLICAS: process.env.DRILL_WAIT_REPLICAS ?? '1' } : {}),
  };
  const names = ['drill-a', 'drill-b', 'drill-c'].slice(0, API_INSTANCES);
  const start = (i: number) => startService(names[i], env.REDIS_URL, env, { schema });
  const services: BenchService[] = [];
  const consumers: Child[] = [];
  const consumerBases: string[] = [];
  const redisClient = redis.client(prefix);
  const pg = new Client({ connectionString: DATABASE_URL });
  const phases: { name: string; counts: Counts; recoveredMs?: number }[] = [];
  const notes: string[] = [];
  let failed = false;
  try {
    for (let i = 0; i < API_INSTANCES; i++) {
      services.push(await start(i));
    }
    for (const n of [1, 2]) {
      const port = await freePort();
      const c = spawnTs(
        'apps/expiry-consumer/src/main.ts',
        {
          ...env,
          DATABASE_URL,
          DATABASE_SCHEMA: schema,
          KAFKA_TOPIC_SEAT_EXPIRED: services[0].topic,
          KAFKA_TOPIC_DEAD_LETTER: `${schema}.dlq`,
          EXPIRY_CONSUMER_PORT: String(port),
          AUTH_JWT_SECRET: BENCH_SECRET,
          LOG_LEVEL: 'warn',
          LOG_FORMAT: 'json',
        },
        path.resolve(__dirname, '..', 'results', `drill-consumer-${n}.log.tmp`),
      );
      await waitUntilUp(`http://127.0.0.1:${port}/health`, c, 120_000);
      consumers.push(c);
      consumerBases.push(`http://127.0.0.1:${port}`);
    }
    await pg.connect();
    const eventId = await services[0].createEvent(SEATS);
    const instances: Instance[] = services.map((s, i) => ({
      name: `seat-api-${i + 1}`,
      base: s.base,
      live: true,
    }));
    const tokens = await Promise.all(Array.from({ length: SHOPPERS }, (_, u) => services[0].token(u)));
    const seats = Array.from({ length: SEATS }, (_, i) => seatId(i));
    const shoppers = new Shoppers(instances, eventId, seats, tokens);
    // ready = /health 200 on every seat-api and every expiry consumer (joined its group, Kafka reachable)
    const allReady = () =>
      until(
        'every instance ready',
        async () =>
          (await Promise.all([...instances.map((i) => i.base), ...consumerBases].map(ready))).every(Boolean),
        120_000,
      );
    const phase = async (name: string, fault: () => Promise<void>) => {
      shoppers.resetCounts();
      log(`${name}...`);
      await fault();
      const recoveredMs = await allReady();
      await sleep(PHASE_MS / 2);
      phases.push({ name, counts: shoppers.resetCounts(), recoveredMs });
      log(`${name}: recovered ${(recoveredMs / 1000).toFixed(1)} s after the fault ended`);
    };

    const mode = CLUSTER ? 'Redis Cluster (3 masters + 4 replicas)' : 'one Redis';
    log(
      `load: ${SHOPPERS} shoppers, ${SEATS} seats, ${API_INSTANCES} seat-api + 2 expiry consumers, ${mode}`,
    );
    shoppers.start();
    await sleep(PHASE_MS);
    phases.push({ name: 'baseline', counts: shoppers.resetCounts() });

    await phase('kill -9 seat-api-1', async () => {
      instances[0].live = false;
      services[0].child.proc.kill('SIGKILL');
      await sleep(PHASE_MS / 2); // the other instances carry the load
      services[0] = await start(0);
      instances[0].base = services[0].base;
      instances[0].live = true;
    });
    await phase('Kafka stopped for 30 s', async () => {
      await kafka.down();
      await sleep(30_000);
      await kafka.up();
    });
    if (redis instanceof LocalCluster) {
      const cluster = redis;
      // the master of the event's shard: every hold, lock and outbox write of the drill goes there
      const key = `${prefix}${DRILL_LAYOUT.eventKeys(eventId).seats}`;
      await phase('kill -9 of the master serving the event, node restarted after', async () => {
        const killed = await cluster.killMasterOf(key);
        const promoted = await cluster.waitPromoted(key, killed.port);
        notes.push(
          `master 127.0.0.1:${killed.port} (slot ${killed.slot}, the event's shard) killed with SIGKILL; ` +
            `replica 127.0.0.1:${promoted.port} serving the slot as master ${(promoted.ms / 1000).toFixed(1)} s later`,
        );
        log(notes.at(-1)!);
        await sleep(PHASE_MS / 2); // load on the promoted replica, the killed node still down
        const role = await cluster.restartNodes(killed.port);
        notes.push(`127.0.0.1:${killed.port} restarted on its append-only file: rejoined as ${role}`);
        log(notes.at(-1)!);
      });
    } else {
      const single = redis as AofRedis;
      await phase('Redis restarted (append-only file kept)', async () => {
        await single.down();
        await sleep(2000);
        await single.up();
      });
    }
    await phase('seat-api-2 paused 3 s (lease 1 s), everyone on 40 seats', async () => {
      // everyone fights over a few seats, so the paused instance's seats are taken while it sleeps
      shoppers.hotSeats(40);
      await sleep(1000);
      services[1].child.proc.kill('SIGSTOP');
      await sleep(3000);
      services[1].child.proc.kill('SIGCONT');
      await sleep(1000);
      shoppers.hotSeats();
    });

    log('stopping the load; waiting for every hold to expire and the outbox to drain');
    await shoppers.stop();
    await sleep(4000); // the longest ttl
    const drainedMs = await until(
      'outbox drained and seats freed',
      async () =>
        (await redisClient.xlen(DRILL_LAYOUT.shardKeys(DRILL_LAYOUT.shardOf(eventId)).outbox)) === 0 &&
        !Object.values(await redisClient.hgetall(DRILL_LAYOUT.eventKeys(eventId).seats)).some((v) =>
          v.startsWith('H|'),
        ),
      120_000,
    );
    const topic = await readTopic(kafka.brokers, services[0].topic, eventId, pg, schema);
    const findings = await checkInvariants({
      pg,
      schema,
      redis: redisClient,
      eventId,
      ledger: shoppers.ledger,
      topicIds: topic.ids,
    });
    if (redis instanceof LocalCluster) {
      // whether REDIS_WAIT_REPLICAS took effect: WAIT calls the nodes processed (a restarted node's count starts again)
      const waits = (await redis.infoOfNodes('commandstats')).reduce(
        (n, info) => n + Number(/^cmdstat_wait:calls=(\d+)/m.exec(info)?.[1] ?? 0),
        0,
      );
      notes.push(
        `WAIT commands processed by the cluster's nodes: ${waits} (for ${shoppers.ledger.size} holds answered 201)`,
      );
    }
    const stale = await counterTotal(services, 'seat_stale_fence_rejections_total');
    const lockLost = await counterTotal(services, 'distributed_lock_lost_total');

    const rows = phases.map(({ name, counts: c, recoveredMs }) => [
      name,
      c.requests,
      c.holds,
      Object.entries(c.statuses)
        .map(([s, n]) => `${s}×${n}`)
        .join(' '),
      c.noAnswer,
      c.badErrors.length,
      recoveredMs === undefined ? '-' : `${(recoveredMs / 1000).toFixed(1)} s`,
    ]);
    const t1 = table(
      [
        'phase',
        'requests',
        'holds',
        'answers',
        'no answer (instance down)',
        'other errors (not 409 / 422 / 503 with Retry-After)',
        'ready again after',
      ],
      rows,
    );
    const t2 = table(
      ['invariant count', 'value'],
      [
        ...Object.entries(findings.counts),
        ['locks found lost before writing (distributed_lock_lost_total)', lockLost],
        ['late writes refused by fencing in Redis (seat_stale_fence_rejections_total)', stale],
        ['outbox drain after the load stopped', `${(drainedMs / 1000).toFixed(1)} s`],
      ],
    );
    const bad = phases.flatMap((p) => p.counts.badErrors);
    const verdict = [...findings.problems, ...bad.slice(0, 10)];
    if (topic.partitions !== PARTITIONS) {
      verdict.push(`the SeatExpired topic has ${topic.partitions} partitions, not ${PARTITIONS}`);
    }
    failed = verdict.length > 0;
    const summary = failed
      ? `FAILED:\n- ${verdict.join('\n- ')}`
      : 'every invariant held; clients saw no error but 409, 422 and 503 with Retry-After';
    const setup = [
      `- mode: ${mode}${CLUSTER ? ` on 127.0.0.1:${CLUSTER_PORT}-${CLUSTER_PORT + 5}, REDIS_WAIT_REPLICAS=${env.REDIS_WAIT_REPLICAS}` : ''}; ` +
        `${API_INSTANCES} seat-api instances, 2 expiry consumers, SeatExpired topic of ${topic.partitions} partitions; ` +
        `${SHOPPERS} shoppers on ${SEATS} seats, DRILL_SECONDS=${PHASE_MS / 1000}`,
      `- load average at start / end: ${loadAtStart.map((l) => l.toFixed(2)).join(' ')} / ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      ...notes.map((n) => `- ${n}`),
    ];
    console.log(`\n${setup.join('\n')}\n\n${t1}\n\n${t2}\n\n${summary}`);
    const file = writeDrillReport(CLUSTER ? 'cluster' : 'single', [
      ...setup,
      '',
      '#### Answers per phase',
      '',
      t1,
      '',
      '#### Invariants at the end',
      '',
      t2,
      '',
      summary,
    ]);
    console.log(`report: ${file}`);
  } finally {
    await Promise.all([...services.map((s) => s.stop()), ...consumers.map((c) => c.stop())]);
    redisClient.disconnect();
    await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await pg.end().catch(() => undefined);
    await kafka.destroy();
    await redis.destroy();
  }
  process.exit(failed ? 1 : 0);
}

/**
 * Reads the whole topic with a fresh consumer group, until the expiry consumers have recorded every
 * distinct SeatExpired on it (or 90 s pass: whatever is missing then is reported as lost).
 */
async function readTopic(
  brokers: string,
  topic: string,
  eventId: string,
  pg: Client,
  schema: string,
): Promise<{ ids: string[]; partitions: number }> {
  const rows = async () =>
    Number(
      (
        await pg.query(`SELECT count(*)::int AS n FROM "${schema}".hold_expiries WHERE event_id = $1`, [
          eventId,
        ])
      ).rows[0].n,
    );
  const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: `drill-probe-${Date.now()}` });
  const ids: string[] = [];
  let lastMessageAt = Date.now();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      const ce = JSON.parse(message.value!.toString()) as { id: string; data: { eventId: string } };
      if (ce.data.eventId === eventId) {
        ids.push(ce.id);
        lastMessageAt = Date.now();
      }
      return Promise.resolve();
    },
  });
  await until(
    'the expiry consumers caught up with the topic',
    async () => Date.now() - lastMessageAt > 3000 && ids.length > 0 && (await rows()) >= new Set(ids).size,
    90_000,
  ).catch((e: Error) => log(e.message));
  await consumer.disconnect();
  return { ids, partitions: meta.topics[0].partitions.length };
}

/** Sums a counter over the seat-api instances (all label sets). */
async function counterTotal(services: BenchService[], name: string): Promise<number> {
  let total = 0;
  for (const s of services) {
    const text = await (await fetch(`${s.base}/metrics`)).text();
    for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'gm'))) {
      total += Number(m[1]);
    }
  }
  return total;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
