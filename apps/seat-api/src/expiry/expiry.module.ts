import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../holds/store';
import { ConfirmReconciler } from './confirm-reconciler.service';
import { ExpirationsController } from './expirations.controller';
import { KafkaTopicsService } from './kafka-topics.service';
import { OutboxRelayService } from './outbox-relay.service';
import { SweeperService } from './sweeper.service';

/** Hold expiry: the sweeper frees due seats into the outbox, the relay moves the outbox to Kafka. */
@Module({
  imports: [HoldStoreModule],
  controllers: [ExpirationsController],
  providers: [SweeperService, ConfirmReconciler, OutboxRelayService, KafkaTopicsService],
  exports: [OutboxRelayService, SweeperService],
})
export class ExpiryModule {}
