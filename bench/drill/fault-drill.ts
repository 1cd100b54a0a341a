/**
 * Fault drill (issue #6): two seat-api instances and two expiry consumers on one append-only Redis,
 * one PostgreSQL schema and a private Kafka broker, under flash-sale load (holds of 1-3 s, releases,
 * confirms). Faults, one after the other, each followed by a check that the instances recovered:
 *   1. kill -9 one seat-api instance mid-load (then start a new one)
 *   2. Kafka stopped for 30 s, then started
 *   3. Redis restarted on its append-only file
 *   4. one instance paused (SIGSTOP) for 3 s, longer than the 1 s seat-lock lease, then resumed
 * At the end, with the load stopped and every hold expired: the invariants of invariants.ts, the
 * answers clients got (only 409, 422 and 503 with Retry-After as errors), and the counts.
 * Needs the Kafka jars (`npm run infra:up` once). Run: npm run drill   (DRILL_SECONDS=10 per phase)
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../test/support/private-redis';
import { PrivateKafka } from '../../test/support/private-kafka';
import { Child, spawnTs, waitUntilUp } from '../support/child';
import { table, writeReport } from '../support/report';
import { BENCH_SECRET, BenchService, DATABASE_URL, seatId, startService } from '../support/service';
import { AofRedis } from './drill-infra';
import { checkInvariants } from './invariants';
import { Counts, Instance, Shoppers } from './shoppers';
import { DRILL_LAYOUT } from './invariants';

const PHASE_MS = Number(process.env.DRILL_SECONDS ?? 10) * 1000;
const SHOPPERS = 150;
const SEATS = 5000;
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
  const redis = await AofRedis.start();
  const kafka = await PrivateKafka.start();
  const env = {
    KAFKA_BROKERS: kafka.brokers,
    REDIS_KEY_PREFIX: 'drill:',
    KAFKA_CONSUMER_GROUP: `${schema}-history`,
    SWEEPER_ENABLED: 'true',
    HOLD_MIN_TTL_SECONDS: '1',
    SEAT_LOCK_LEASE_MS: '1000',
    OUTBOX_CLAIM_IDLE_MS: '3000', // a killed relay's records are taken over after 3 s
    CONFIRM_TIMEOUT_MS: '3000', // a confirm cut off by kill -9 is settled by the reconciler after 3 s
  };
  const services: BenchService[] = [];
  const consumers: Child[] = [];
  const consumerBases: string[] = [];
  const redisClient = new Redis(redis.url, { keyPrefix: 'drill:' });
  redisClient.on('error', () => undefined);
  const pg = new Client({ connectionString: DATABASE_URL });
  const phases: { name: string; counts: Counts; recoveredMs?: number }[] = [];
  let failed = false;
  try {
    for (const name of ['drill-a', 'drill-b']) {
      services.push(await startService(name, redis.url, env, { schema }));
    }
    for (const n of [1, 2]) {
      const port = await freePort();
      const c = spawnTs(
        'apps/expiry-consumer/src/main.ts',
        {
          ...env,
          AUTH_JWT_SECRET: BENCH_SECRET,
          DATABASE_URL,
          DATABASE_SCHEMA: schema,
          REDIS_URL: redis.url,
          KAFKA_TOPIC_SEAT_EXPIRED: services[0].topic,
          KAFKA_TOPIC_DEAD_LETTER: `${schema}.dlq`,
          EXPIRY_CONSUMER_PORT: String(port),
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

    log(`load: ${SHOPPERS} shoppers, ${SEATS} seats, 2 seat-api + 2 expiry consumers`);
    shoppers.start();
    await sleep(PHASE_MS);
    phases.push({ name: 'baseline', counts: shoppers.resetCounts() });

    await phase('kill -9 seat-api-1', async () => {
      instances[0].live = false;
      services[0].child.proc.kill('SIGKILL');
      await sleep(PHASE_MS / 2); // the other instance carries the load alone
      services[0] = await startService('drill-a', redis.url, env, { schema });
      instances[0].base = services[0].base;
      instances[0].live = true;
    });
    await phase('Kafka stopped for 30 s', async () => {
      await kafka.down();
      await sleep(30_000);
      await kafka.up();
    });
    await phase('Redis restarted (append-only file kept)', async () => {
      await redis.down();
      await sleep(2000);
      await redis.up();
    });
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
    const topicIds = await readTopic(kafka.brokers, services[0].topic, eventId, pg, schema);
    const findings = await checkInvariants({
      pg,
      schema,
      redis: redisClient,
      eventId,
      ledger: shoppers.ledger,
      topicIds,
    });
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
        '500 / 503 without Retry-After',
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
    failed = verdict.length > 0;
    const summary = failed
      ? `FAILED:\n- ${verdict.join('\n- ')}`
      : 'every invariant held; clients saw no 500 and no 503 without Retry-After';
    console.log(`\n${t1}\n\n${t2}\n\n${summary}`);
    const file = writeReport('drill', 'Fault drill', 'npm run drill', [
      '## Answers per phase',
      '',
      t1,
      '',
      '## Invariants at the end',
      '',
      t2,
      '',
      summary,
      '',
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
): Promise<string[]> {
  const rows = async () =>
    Number(
      (
        await pg.query(`SELECT count(*)::int AS n FROM "${schema}".hold_expiries WHERE event_id = $1`, [
          eventId,
        ])
      ).rows[0].n,
    );
  const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
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
  return ids;
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
