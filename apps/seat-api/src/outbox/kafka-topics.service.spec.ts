/**
 * An app closed while Kafka is unreachable must stop trying to create its topics: an attempt in flight
 * at shutdown that schedules another one keeps a kafkajs client retrying forever after close, and the
 * process never exits.
 */
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { createKafka } from '@app/kafka';
import { freePort } from '@test/support/private-redis';
import { KafkaTopicsService } from './kafka-topics.service';

it('stops retrying topic creation once the app shuts down, even with an attempt in flight', async () => {
  const deadBroker = `127.0.0.1:${await freePort()}`; // nothing listens there: connect is refused
  const kafka = createKafka({ brokers: [deadBroker], clientId: 'topics-spec', requestTimeoutMs: 500 });
  const config = {
    kafka: { seatExpiredTopic: 'spec.seat-expired', deadLetterTopic: 'spec.dlq', partitions: 1 },
  } as AppConfig;
  const warnings: string[] = [];
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
    warnings.push(String(message));
  });
  jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);

  // the attempt ends when ensureTopics lets go of its admin client (in its `finally`, after kafkajs's
  // retries, about 3 s): the real client, only watched
  let attemptEnded: Promise<void> | undefined;
  const admin = kafka.admin.bind(kafka);
  jest.spyOn(kafka, 'admin').mockImplementation((...args) => {
    const client = admin(...args);
    const disconnect = client.disconnect.bind(client);
    attemptEnded = new Promise((ended) => {
      client.disconnect = () => disconnect().finally(ended);
    });
    return client;
  });

  const service = new KafkaTopicsService(kafka, config);
  service.onApplicationBootstrap(); // first attempt starts and is still retrying the connection
  const shutdown = service.onApplicationShutdown(); // waits for that attempt

  expect(attemptEnded).toBeDefined();
  await attemptEnded;
  await shutdown;
  // what the service does with the failure runs in promise callbacks: all of them run before this
  await new Promise((r) => setImmediate(r));
  expect(warnings.filter((w) => w.includes('retrying in 5 s'))).toEqual([]);
  expect(service.topicsReady).toBe(false);
}, 20_000);
