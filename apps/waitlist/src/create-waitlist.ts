import { NestFactory } from '@nestjs/core';
import type { NestApplicationOptions } from '@nestjs/common';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import type { Kafka } from 'kafkajs';
import { WaitlistConfig } from '@app/config';
import { ensureTopicsPatiently, GroupMembership, KAFKA } from '@app/kafka';
import { recordHttpMetrics } from '@app/observability';
import { SeatStatusConsumer } from './seat-status.consumer';
import { WaitlistModule } from './waitlist.module';

/**
 * The waitlist app: a Kafka consumer of seat.status (SeatStatusConsumer: its own group, manual commits)
 * plus a small HTTP server for /health and /metrics. Resolves once the consumer has joined its group.
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
    await ensureTopicsPatiently(
      app.get<Kafka>(KAFKA),
      [config.kafka.seatStatusTopic],
      config.kafka.partitions,
    );
    await app.get(SeatStatusConsumer).start();
    await app.listen(port ?? config.http.port, config.http.host);
    await app.get(GroupMembership).waitUntilJoined(60_000);
    return app;
  } catch (e) {
    await app.close().catch(() => undefined);
    throw e;
  }
}
