import { NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '@app/config';
import { ensureTopics, KAFKA } from '@app/kafka';
import type { Kafka } from 'kafkajs';
import { createLogger, recordHttpMetrics } from '@app/observability';
import { ConsumerModule } from './consumer.module';
import { GroupMembership } from './group-membership';
import { ObservedServerKafka } from './observed-server-kafka';

/**
 * The expiry consumer: a Kafka consumer (its own group, manual commits) plus a small HTTP server for
 * /health and /metrics. Resolves once the consumer has joined its group; tests call this too.
 */
export async function startExpiryConsumer(port?: number): Promise<NestFastifyApplication> {
  const config = loadConfig();
  const adapter = new FastifyAdapter({ logger: false });
  recordHttpMetrics(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(ConsumerModule, adapter, {
    logger: createLogger(config.log.level, config.log.format, 'expiry-consumer'),
  });
  app.enableShutdownHooks();
  const membership = app.get(GroupMembership);
  app.connectMicroservice<MicroserviceOptions>({
    strategy: new ObservedServerKafka(
      {
        postfixId: '', // use KAFKA_CONSUMER_GROUP exactly: every instance shares the work
        client: { clientId: `${config.kafka.clientId}-expiry-consumer`, brokers: config.kafka.brokers },
        consumer: { groupId: config.kafka.consumerGroup, allowAutoTopicCreation: false },
        subscribe: { fromBeginning: true },
        run: { autoCommit: false },
      },
      (consumer) => membership.attach(consumer),
    ),
  });
  try {
    // subscribing to a topic that does not exist yet fails: create it if the seat API has not
    await ensureTopicsPatiently(
      app.get<Kafka>(KAFKA),
      [config.kafka.seatExpiredTopic, config.kafka.deadLetterTopic],
      config.kafka.partitions,
    );
    await app.startAllMicroservices();
    await app.listen(port ?? config.http.consumerPort, config.http.host);
    await membership.waitUntilJoined(60_000);
    return app;
  } catch (e) {
    // a half-started consumer (connected clients, timers) would keep the process alive: close it
    await app.close().catch(() => undefined);
    throw e;
  }
}

async function ensureTopicsPatiently(kafka: Kafka, topics: string[], partitions: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ensureTopics(kafka, topics, partitions);
      return;
    } catch (e) {
      if (attempt >= 30) {
        throw e;
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
}
