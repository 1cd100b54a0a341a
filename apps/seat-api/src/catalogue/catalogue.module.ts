import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../hold-store';
import { CatalogueController } from './catalogue.controller';
import { CatalogueService } from './catalogue.service';
import { DemoSeedService } from './demo-seed.service';
import { EventRepair } from './event-repair';
import { EventsController } from './events.controller';
import { EventPolicyService } from './policy/event-policy.service';
import { EventsReader } from './read/events-reader.service';

@Module({
  imports: [HoldStoreModule],
  controllers: [CatalogueController, EventsController],
  providers: [CatalogueService, DemoSeedService, EventPolicyService, EventRepair, EventsReader],
  exports: [CatalogueService, EventPolicyService],
})
export class CatalogueModule {}
