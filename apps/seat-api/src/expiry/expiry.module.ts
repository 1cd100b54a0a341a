import { Module } from '@nestjs/common';
import { ConfirmModule } from '../holds/confirm/confirm.module';
import { HoldStoreModule } from '../hold-store';
import { OutboxModule } from '../outbox/outbox.module';
import { ShardsModule } from '../shards/shards.module';
import { ConfirmReconciler } from './confirm-reconciler.service';
import { ExpirationsController } from './expirations.controller';
import { ShardWake } from './shard-wake';
import { StuckConfirms } from './stuck-confirms';
import { SweeperService } from './sweeper.service';

/**
 * Hold expiry: the sweeper frees due seats and writes their SeatExpired records into the outbox
 * (outbox/ moves them to Kafka), the confirm reconciler decides confirms the sweeper found stuck.
 */
@Module({
  imports: [HoldStoreModule, ConfirmModule, OutboxModule, ShardsModule],
  controllers: [ExpirationsController],
  providers: [SweeperService, ShardWake, StuckConfirms, ConfirmReconciler],
  exports: [OutboxModule, SweeperService, ShardsModule],
})
export class ExpiryModule {}
