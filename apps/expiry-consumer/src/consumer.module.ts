import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule, ExpiryConsumerConfig } from '@app/config';
import { DatabaseModule } from '@app/database';
import { ConsumerHealthController, GroupMembership, KafkaModule } from '@app/kafka';
import { loggingParams, ObservabilityModule } from '@app/observability';
import { DeadLetterPublisher } from './dead-letter.publisher';
import { HoldExpiryRecorder } from './hold-expiry.recorder';
import { SeatExpiredConsumer } from './seat-expired.consumer';

/**
 * The expiry consumer: its own configuration (ExpiryConsumerConfig: PostgreSQL, Kafka, logging; no Redis,
 * no auth), the libraries wired from it, the Kafka handler and the health endpoint.
 */
@Module({
  imports: [
    ConfigModule.forRoot(ExpiryConsumerConfig),
    LoggerModule.forRootAsync({
      inject: [ExpiryConsumerConfig],
      useFactory: (config: ExpiryConsumerConfig) => loggingParams({ ...config.log, app: 'expiry-consumer' }),
    }),
    ObservabilityModule,
    TerminusModule,
    DatabaseModule.forRootAsync({
      inject: [ExpiryConsumerConfig],
      useFactory: (config: ExpiryConsumerConfig) => config.database,
    }),
    KafkaModule.forRootAsync({
      inject: [ExpiryConsumerConfig],
      useFactory: (config: ExpiryConsumerConfig) => config.kafka,
    }),
  ],
  controllers: [SeatExpiredConsumer, ConsumerHealthController],
  providers: [HoldExpiryRecorder, DeadLetterPublisher, GroupMembership],
})
export class ConsumerModule {}
