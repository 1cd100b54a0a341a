/**
 * /health is readiness for a load balancer. PostgreSQL and Redis are hard dependencies (503 naming the
 * one that is down); Kafka is not: with Kafka stopped holds keep working and SeatExpired events wait in
 * the outbox, so readiness stays 200 and reports Kafka as degraded. It recovers by itself either way.
 * Uses a private broker and a private redis-server, so stopping them disturbs no other test.
 */
import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createSeatApi } from '../../apps/seat-api/src/bootstrap/create-app';
import { OutboxRelayService } from '../../apps/seat-api/src/outbox/outbox-relay.service';
import { ShardOwnership } from '../../apps/seat-api/src/shards/shard-ownership.service';
import { eventually } from '@test/support/eventually';
import { PrivateKafka } from '@test/support/private-kafka';
import { PrivateRedis, startPrivateRedis } from '@test/support/private-redis';

jest.setTimeout(180_000);

let kafka: PrivateKafka;
let redis: PrivateRedis;
let app: NestFastifyApplication;
let base: string;

interface Health {
  status: string;
  details: Record<string, { status: string } & Record<string, unknown>>;
}

async function health(): Promise<{ code: number; body: Health }> {
  const res = await fetch(`${base}/health`);
  return { code: res.status, body: (await res.json()) as Health };
}

beforeAll(async () => {
  kafka = await PrivateKafka.start();
  redis = await startPrivateRedis();
  process.env.KAFKA_BROKERS = kafka.brokers;
  process.env.REDIS_URL = redis.url;
  process.env.SWEEPER_ENABLED = 'true'; // the relay runs: /health reports the outbox it measures
  app = await createSeatApi();
  await app.listen(0, '127.0.0.1');
  base = await app.getUrl();
});

afterAll(async () => {
  await app?.close();
  await redis?.stop();
  await kafka?.destroy();
});

it('reports PostgreSQL, Redis, Kafka and the outbox up', async () => {
  await eventually(async () => (await health()).code === 200, 30_000);
  const { body } = await health();
  expect(body.status).toBe('ok');
  for (const dep of ['kafka', 'postgres', 'redis', 'outbox']) {
    expect(body.details[dep]?.status).toBe('up');
  }
  expect(body.details.redis.maxmemoryPolicy).toBe('noeviction');
  expect(body.details.outbox).toMatchObject({ depth: 0, draining: true });
});

it('stays ready (200) while Kafka is down, reports Kafka as degraded, and recovers without a restart', async () => {
  await kafka.down();
  try {
    const down = await health();
    expect(down.code).toBe(200);
    expect(down.body.status).toBe('degraded');
    expect(down.body.details.kafka.status).toBe('degraded');
    expect(down.body.details.kafka.message).toEqual(expect.any(String));
    expect(down.body.details.redis.status).toBe('up');
    expect(down.body.details.postgres.status).toBe('up');
    // what does not need Kafka still answers
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
  } finally {
    await kafka.up(); // also when an assertion failed: the next test needs the broker
  }
  await eventually(async () => (await health()).body.status === 'ok', 60_000, 'health ok again');
});

it('answers 503 naming Redis while Redis is down, and recovers when it returns', async () => {
  await redis.stop();
  const down = await health();
  expect(down.code).toBe(503);
  expect(down.body.details.redis.status).toBe('down');
  expect(down.body.details.postgres.status).toBe('up');
  expect((await fetch(`${base}/health/live`)).status).toBe(200);
  // an idle relay reads nothing from Redis: it meets the outage once a stream may hold records, as when
  // the sweep wrote some just before Redis went down
  const owned = app.get(ShardOwnership).ownedShards();
  expect(owned.length).toBeGreaterThan(0);
  app.get(OutboxRelayService).recordsMayWait(owned);
  // the relay names Redis, not Kafka, as what fails (it keeps its Kafka producer)
  await eventually(
    async () =>
      ((await health()).body.details.outbox.lastError as { source?: string } | undefined)?.source === 'redis',
    10_000,
    'outbox relay failing on Redis',
  );
  expect((await health()).body.details.kafka.status).toBe('up');

  redis = await redis.restart();
  await eventually(async () => (await health()).code === 200, 30_000, 'ready again');
});
