import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule } from '@app/database';
import { KafkaModule } from '@app/kafka';
import { ObservabilityModule } from '@app/observability';
import { ConsumerHealthController } from './consumer-health.controller';
import { DeadLetterPublisher } from './dead-letter.publisher';
import { GroupMembership } from './group-membership';
import { HoldExpiryRecorder } from './hold-expiry.recorder';
import { SeatExpiredConsumer } from './seat-expired.consumer';

@Module({
  imports: [
    ConfigModule,
    ObservabilityModule,
    TerminusModule,
    DatabaseModule.forRootAsync({ inject: [AppConfig], useFactory: (c: AppConfig) => c.database }),
    KafkaModule.forRootAsync({ inject: [AppConfig], useFactory: (c: AppConfig) => c.kafka }),
  ],
  controllers: [SeatExpiredConsumer, ConsumerHealthController],
  providers: [HoldExpiryRecorder, DeadLetterPublisher, GroupMembership],
})
export class ConsumerModule {}
