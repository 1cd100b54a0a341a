import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../hold-store';
import { CatalogueController } from './catalogue.controller';
import { CatalogueService } from './catalogue.service';
import { DemoSeedService } from './demo-seed.service';

@Module({
  imports: [HoldStoreModule],
  controllers: [CatalogueController],
  providers: [CatalogueService, DemoSeedService],
  exports: [CatalogueService],
})
export class CatalogueModule {}
