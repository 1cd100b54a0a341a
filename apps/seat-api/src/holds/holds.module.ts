import { Module } from '@nestjs/common';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { PricingModule } from '../pricing/pricing.module';
import { QueueModule } from '../queue/queue.module';
import { BestAvailable } from './allocation/best-available';
import { EventCancellationController } from './cancel/event-cancellation.controller';
import { EventCancellation } from './cancel/event-cancellation.service';
import { ConfirmHoldUseCase } from './confirm/confirm-hold.use-case';
import { ConfirmModule } from './confirm/confirm.module';
import { HoldsController } from './holds.controller';
import { HoldPolicy } from './hold-policy';
import { HoldsService } from './holds.service';
import { IdempotentRequests } from './idempotency/idempotent-requests';
import { IdempotencyService } from './idempotency/idempotency.service';
import { LockedHoldChanges } from './locked-hold-changes';
import { HoldReads } from './hold-reads';
import { HoldLines } from './lines/hold-lines.service';
import { HoldLinesController } from './lines/hold-lines.controller';
import { SeatDemand } from './seat-demand';
import { SeatLockSettings } from './seat-lock';
import { HoldStoreModule } from '../hold-store';

@Module({
  imports: [HoldStoreModule, CatalogueModule, ConfirmModule, QueueModule, PricingModule],
  controllers: [HoldsController, HoldLinesController, EventCancellationController],
  providers: [
    HoldsService,
    LockedHoldChanges,
    HoldReads,
    HoldLines,
    BestAvailable,
    HoldPolicy,
    EventCancellation,
    ConfirmHoldUseCase,
    SeatLockSettings,
    SeatDemand,
    IdempotencyService,
    IdempotentRequests,
  ],
  // HoldsService: staff hold on a customer's behalf through the customer's own path (holds/admin)
  exports: [ConfirmModule, HoldsService],
})
export class HoldsModule {}
