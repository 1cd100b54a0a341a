import type { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { AbstractHttpAdapter, NestFactory } from '@nestjs/core';
import { MicroserviceOptions } from '@nestjs/microservices';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { ExpiryConsumerConfig } from '@app/config';
import {
  ensureTopicsPatiently,
  GroupMembership,
  KAFKA,
  kafkaLogCreator,
  ObservedServerKafka,
} from '@app/kafka';
import { logLevel, type Kafka } from 'kafkajs';
import { recordHttpMetrics } from '@app/observability';
import { ConsumerModule } from './consumer.module';

/** A compiled module that creates the app instead of NestFactory: a test's TestingModule (overrideProvider). */
export interface ConsumerModuleRef {
  createNestApplication<T extends INestApplication>(
    adapter: AbstractHttpAdapter,
    options?: NestApplicationOptions,
  ): T;
}

/**
 * The expiry consumer: a Kafka consumer (its own group, manual commits) plus a small HTTP server for
 * /health and /metrics. Resolves once the consumer has joined its group; tests call this too, optionally
 * with their own compiled ConsumerModule. Everything configurable comes from the injected
 * ExpiryConsumerConfig, resolved when the app is created.
 */
export async function startExpiryConsumer(
  port?: number,
  moduleRef?: ConsumerModuleRef,
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ logger: false });
  recordHttpMetrics(adapter.getInstance());
  // boot lines wait for the pino logger; a failed boot is the entry point's to print (see BOOT_LOGGING in
  // the seat API's create-app.ts: the same reasons)
  const options: NestApplicationOptions = { bufferLogs: true, autoFlushLogs: false, abortOnError: false };
  const app = moduleRef
    ? moduleRef.createNestApplication<NestFastifyApplication>(adapter, options)
    : await NestFactory.create<NestFastifyApplication>(ConsumerModule, adapter, options);
  try {
    app.useLogger(app.get(Logger));
    app.flushLogs();
    app.enableShutdownHooks();
    const config = app.get(ExpiryConsumerConfig);
    const membership = app.get(GroupMembership);
    app.connectMicroservice<MicroserviceOptions>({
      strategy: new ObservedServerKafka(
        {
          postfixId: '', // use KAFKA_CONSUMER_GROUP exactly: every instance shares the work
          client: {
            clientId: `${config.kafka.clientId}-expiry-consumer`,
            brokers: config.kafka.brokers,
            // its own kafkajs client logs like the app's other Kafka clients: at warn, repeats collapsed
            logLevel: logLevel.WARN,
            logCreator: kafkaLogCreator(),
          },
          consumer: { groupId: config.kafka.consumerGroup, allowAutoTopicCreation: false },
          subscribe: { fromBeginning: true },
          run: { autoCommit: false },
        },
        {
          observe: (consumer) => membership.attach(consumer),
          topics: { seatExpired: config.kafka.seatExpiredTopic },
        },
      ),
    });
    // subscribing to a topic that does not exist yet fails: create it if the seat API has not
    await ensureTopicsPatiently(
      app.get<Kafka>(KAFKA),
      [config.kafka.seatExpiredTopic, config.kafka.deadLetterTopic],
      config.kafka.partitions,
    );
    await app.startAllMicroservices();
    await app.listen(port ?? config.http.port, config.http.host);
    await membership.waitUntilJoined(60_000);
    return app;
  } catch (e) {
    // a half-started consumer (connected clients, timers) would keep the process alive: close it
    await app.close().catch(() => undefined);
    throw e;
  }
}
