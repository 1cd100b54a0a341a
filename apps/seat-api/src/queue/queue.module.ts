import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { HoldStoreModule } from '../hold-store';
import { AdmissionPasses } from './admission-passes';
import { JwksController } from './jwks.controller';
import { QueueAdmission } from './queue-admission';
import { QueueEntriesController } from './queue-entries.controller';
import { QueueStatusCache } from './queue-status.cache';
import { QueueStatusStreams } from './queue-status.streams';
import { QueueController } from './queue.controller';
import { QueueService } from './queue.service';

/** On-sale queues: set up and steered by staff, joined by shoppers, stepped by every instance. */
@Module({
  imports: [HoldStoreModule, CatalogueModule, AuditModule],
  controllers: [QueueController, QueueEntriesController, JwksController],
  providers: [QueueService, QueueAdmission, QueueStatusCache, QueueStatusStreams, AdmissionPasses],
  // the hold gate (holds/): passes read, and whether an event's queue stands in the way now
  exports: [AdmissionPasses, QueueStatusCache],
})
export class QueueModule {}
