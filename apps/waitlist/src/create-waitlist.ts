import { NestFactory } from '@nestjs/core';
import type { NestApplicationOptions } from '@nestjs/common';
import { MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { logLevel, type Kafka } from 'kafkajs';
import { WaitlistConfig } from '@app/config';
import { ensureTopics, GroupMembership, KAFKA, kafkaLogCreator, ObservedServerKafka } from '@app/kafka';
import { recordHttpMetrics } from '@app/observability';
import { WaitlistModule } from './waitlist.module';

/** Partitions handled at once; below DATABASE_POOL_SIZE's default, as each holds a connection. */
const PARTITIONS_AT_ONCE = 6;

/**
 * The waitlist app, as apps/expiry-consumer is built: a Kafka consumer of seat.status (its own group,
 * manual commits) plus a small HTTP server for /health and /metrics. Resolves once the consumer has
 * joined its group.
 */
export async function startWaitlist(port?: number): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ logger: false });
  recordHttpMetrics(adapter.getInstance());
  const options: NestApplicationOptions = { bufferLogs: true, autoFlushLogs: false, abortOnError: false };
  const app = await NestFactory.create<NestFastifyApplication>(WaitlistModule, adapter, options);
  try {
    app.useLogger(app.get(Logger));
    app.flushLogs();
    app.enableShutdownHooks();
    const config = app.get(WaitlistConfig);
    const membership = app.get(GroupMembership);
    app.connectMicroservice<MicroserviceOptions>({
      strategy: new ObservedServerKafka(
        {
          postfixId: '', // use WAITLIST_CONSUMER_GROUP exactly: every instance shares the work
          client: {
            clientId: `${config.kafka.clientId}-waitlist`,
            brokers: config.kafka.brokers,
            logLevel: logLevel.WARN,
            logCreator: kafkaLogCreator(),
          },
          consumer: {
            groupId: config.kafka.consumerGroup,
            allowAutoTopicCreation: false,
            sessionTimeout: config.kafka.sessionTimeoutMs,
            heartbeatInterval: Math.floor(config.kafka.sessionTimeoutMs / 10),
          },
          subscribe: { fromBeginning: true },
          // shows on other partitions are offered at the same time: an offer waits mostly on PostgreSQL,
          // the seat API and Kafka, not on this process, and one partition's changes stay in order
          run: { autoCommit: false, partitionsConsumedConcurrently: PARTITIONS_AT_ONCE },
        },
        {
          observe: (consumer) => membership.attach(consumer),
          topics: { seatStatus: config.kafka.seatStatusTopic },
        },
      ),
    });
    await ensureTopicsPatiently(
      app.get<Kafka>(KAFKA),
      [config.kafka.seatStatusTopic],
      config.kafka.partitions,
    );
    await app.startAllMicroservices();
    await app.listen(port ?? config.http.port, config.http.host);
    await membership.waitUntilJoined(60_000);
    return app;
  } catch (e) {
    await app.close().catch(() => undefined);
    throw e;
  }
}

/** Subscribing to a topic that does not exist yet fails: create it if the seat API has not. */
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
