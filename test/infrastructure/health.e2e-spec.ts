/**
 * /health reports PostgreSQL, Redis and Kafka; with Kafka stopped it answers 503 naming Kafka while
 * the rest of the service keeps answering, and it recovers by itself when Kafka returns.
 * Uses a private broker so stopping it does not disturb the shared one.
 */
import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createSeatApi } from '../../apps/seat-api/src/bootstrap/create-app';
import { eventually } from '../support/eventually';
import { PrivateKafka } from '../support/private-kafka';

jest.setTimeout(180_000);

let kafka: PrivateKafka;
let app: NestFastifyApplication;
let base: string;

interface Health {
  status: string;
  details: Record<string, { status: string }>;
}

async function health(): Promise<{ code: number; body: Health }> {
  const res = await fetch(`${base}/health`);
  return { code: res.status, body: (await res.json()) as Health };
}

beforeAll(async () => {
  kafka = await PrivateKafka.start();
  process.env.KAFKA_BROKERS = kafka.brokers;
  process.env.SWEEPER_ENABLED = 'false';
  app = await createSeatApi();
  await app.listen(0, '127.0.0.1');
  base = await app.getUrl();
});

afterAll(async () => {
  await app?.close();
  await kafka?.destroy();
});

it('reports all three dependencies up', async () => {
  await eventually(async () => (await health()).code === 200, 30_000);
  const { body } = await health();
  expect(body.status).toBe('ok');
  expect(Object.keys(body.details).sort()).toEqual(expect.arrayContaining(['kafka', 'postgres', 'redis']));
  for (const dep of ['kafka', 'postgres', 'redis']) {
    expect(body.details[dep].status).toBe('up');
  }
});

it('answers 503 naming Kafka while it is down, keeps serving, and recovers without a restart', async () => {
  await kafka.down();
  const down = await health();
  expect(down.code).toBe(503);
  expect(down.body.details.kafka.status).toBe('down');
  expect(down.body.details.redis.status).toBe('up');
  expect(down.body.details.postgres.status).toBe('up');
  // what does not need Kafka still answers
  expect((await fetch(`${base}/health/live`)).status).toBe(200);
  expect((await fetch(`${base}/metrics`)).status).toBe(200);

  await kafka.up();
  await eventually(async () => (await health()).code === 200, 60_000);
});
