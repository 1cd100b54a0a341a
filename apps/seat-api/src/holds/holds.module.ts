import { Module } from '@nestjs/common';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { ConfirmHoldUseCase } from './confirm/confirm-hold.use-case';
import { ConfirmModule } from './confirm/confirm.module';
import { HoldsController } from './holds.controller';
import { HoldsService } from './holds.service';
import { IdempotencyService } from './idempotency.service';
import { HoldStoreModule } from './store';

@Module({
  imports: [HoldStoreModule, CatalogueModule, ConfirmModule],
  controllers: [HoldsController],
  providers: [HoldsService, ConfirmHoldUseCase, IdempotencyService],
  exports: [ConfirmModule],
})
export class HoldsModule {}
