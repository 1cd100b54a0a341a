import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { LoggerModule } from 'nestjs-pino';
import { ConfigModule, WaitlistConfig } from '@app/config';
import { DatabaseModule, WaitlistRepository } from '@app/database';
import { ConsumerHealthController, GroupMembership, KafkaModule } from '@app/kafka';
import { loggingParams, ObservabilityModule } from '@app/observability';
import { OfferHolds } from './offers/offer-holds';
import { OfferMaker } from './offers/offer-maker';
import { OfferPublisher } from './offers/offer-publisher';
import { SeatStatusConsumer } from './seat-status.consumer';

/**
 * The waitlist app: its own configuration (WaitlistConfig: PostgreSQL, Kafka, the seat API it holds offers
 * through, logging; no Redis), the seat.status handler that turns freed seats into offers, and /health.
 */
@Module({
  imports: [
    ConfigModule.forRoot(WaitlistConfig),
    LoggerModule.forRootAsync({
      inject: [WaitlistConfig],
      useFactory: (config: WaitlistConfig) => loggingParams({ ...config.log, app: 'waitlist' }),
    }),
    ObservabilityModule,
    TerminusModule,
    DatabaseModule.forRootAsync({ inject: [WaitlistConfig], useFactory: (c: WaitlistConfig) => c.database }),
    KafkaModule.forRootAsync({ inject: [WaitlistConfig], useFactory: (c: WaitlistConfig) => c.kafka }),
  ],
  controllers: [ConsumerHealthController],
  providers: [
    SeatStatusConsumer,
    OfferMaker,
    OfferHolds,
    OfferPublisher,
    GroupMembership,
    WaitlistRepository,
  ],
})
export class WaitlistModule {}
