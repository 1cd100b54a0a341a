/**
 * Each app validates only the variables it reads, and its configuration is a DI provider:
 * - the expiry consumer boots without AUTH_JWT_SECRET and without any Redis setting (it uses neither);
 * - the topic its @EventPattern handler consumes comes from the injected ExpiryConsumerConfig at bootstrap,
 *   not from the environment at import time: a test's overrideProvider reaches it.
 * Real Kafka and PostgreSQL: a SeatExpired published to the topic ends up in hold_expiries.
 */
import { randomUUID } from 'node:crypto';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { ExpiryConsumerConfig } from '@app/config';
import { seatExpiredEvent, seatExpiredKafkaMessage } from '@app/contracts';
import { ConsumerModule } from '../../apps/expiry-consumer/src/consumer.module';
import { startExpiryConsumer } from '../../apps/expiry-consumer/src/create-consumer';
import { eventually } from '@test/support/eventually';

jest.setTimeout(90_000);

let consumer: NestFastifyApplication | undefined;
let pg: Client;
const saved = { ...process.env };

beforeAll(async () => {
  pg = new Client({ connectionString: process.env.DATABASE_URL });
  await pg.connect();
});
afterEach(async () => {
  await consumer?.close();
  consumer = undefined;
  process.env = { ...saved };
});
afterAll(async () => {
  await pg.end();
});

/** Publishes one SeatExpired for a new hold to `topic` and waits until the consumer stored it. */
async function recordsFrom(topic: string): Promise<void> {
  const holdId = randomUUID();
  const ce = seatExpiredEvent(
    {
      eventId: randomUUID(),
      seatId: 'S-A-1',
      holdId,
      userId: 'u1',
      expireAt: new Date().toISOString(),
      fencingToken: 1,
    },
    new Date(),
  );
  const kafka = new Kafka({ brokers: process.env.KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: [seatExpiredKafkaMessage(ce)] });
  } finally {
    await producer.disconnect();
  }
  await eventually(
    async () =>
      (
        await pg.query(`SELECT 1 FROM ${process.env.DATABASE_SCHEMA}.hold_expiries WHERE hold_id = $1`, [
          holdId,
        ])
      ).rowCount === 1,
    30_000,
    `SeatExpired from ${topic} recorded`,
  );
}

it('the expiry consumer boots without AUTH_JWT_SECRET and without any Redis setting', async () => {
  delete process.env.AUTH_JWT_SECRET;
  delete process.env.REDIS_URL;
  delete process.env.REDIS_CLUSTER_NODES;
  consumer = await startExpiryConsumer(0);
  const health = await fetch(`${await consumer.getUrl()}/health`);
  expect(health.status).toBe(200);
  await recordsFrom(process.env.KAFKA_TOPIC_SEAT_EXPIRED!);
});

it('the expiry consumer consumes the topic its injected config names (overrideProvider)', async () => {
  const config = ExpiryConsumerConfig.load(process.env);
  const topic = `${config.kafka.seatExpiredTopic}.override`;
  Object.assign(config.env, {
    KAFKA_TOPIC_SEAT_EXPIRED: topic,
    KAFKA_CONSUMER_GROUP: `${config.kafka.consumerGroup}.override`,
  });
  const moduleRef = await Test.createTestingModule({ imports: [ConsumerModule] })
    .overrideProvider(ExpiryConsumerConfig)
    .useValue(config)
    .compile();
  consumer = await startExpiryConsumer(0, moduleRef);
  await recordsFrom(topic);
});
