import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { HoldPrices } from './hold-prices.service';
import { PriceLists } from './price-lists.service';
import { PricesController } from './prices.controller';
import { PricingController } from './pricing.controller';
import { PromoCodes } from './promo-codes.service';
import { PromoCodesController } from './promo-codes.controller';

/**
 * Prices: each show's versioned price list and its promo codes (PostgreSQL), and the one calculator
 * (price-calculator.ts). The holds feature prices holds and bookings with them.
 */
@Module({
  imports: [CatalogueModule, AuditModule],
  controllers: [PricingController, PricesController, PromoCodesController],
  providers: [PriceLists, PromoCodes, HoldPrices],
  exports: [PriceLists, PromoCodes, HoldPrices],
})
export class PricingModule {}
