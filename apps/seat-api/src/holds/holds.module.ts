import { Module } from '@nestjs/common';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { BookingRepository } from './booking.repository';
import { HoldsController } from './holds.controller';
import { HoldsService } from './holds.service';
import { IdempotencyService } from './idempotency.service';
import { HoldStoreModule } from './store';

@Module({
  imports: [HoldStoreModule, CatalogueModule],
  controllers: [HoldsController],
  providers: [HoldsService, BookingRepository, IdempotencyService],
  exports: [BookingRepository],
})
export class HoldsModule {}
