import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../holds/store';
import { ConfirmReconciler } from './confirm-reconciler.service';
import { ExpirationsController } from './expirations.controller';
import { KafkaTopicsService } from './kafka-topics.service';
import { OutboxModule } from './outbox/outbox.module';
import { SweeperService } from './sweeper.service';

/** Hold expiry: the sweeper frees due seats into the outbox, the relay moves the outbox to Kafka. */
@Module({
  imports: [HoldStoreModule, OutboxModule],
  controllers: [ExpirationsController],
  providers: [SweeperService, ConfirmReconciler, KafkaTopicsService],
  exports: [OutboxModule, SweeperService],
})
export class ExpiryModule {}
