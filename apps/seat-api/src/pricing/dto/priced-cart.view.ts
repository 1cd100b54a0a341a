import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** One priced line of a hold or booking: a seat, its ticket type, its price and discount (minor units). */
export class PricedLineView {
  @ApiProperty({ example: 'STALLS-A-12' }) seatId!: string;
  @ApiProperty() category!: string;
  @ApiProperty({ example: 'adult' }) ticketType!: string;
  @ApiProperty({ description: "the ticket type's price in the hold's price-list version" })
  unitPrice!: number;
  @ApiProperty({ description: 'what the promo code takes off this line (0: none); never above unitPrice' })
  discount!: number;
}

/**
 * The prices of a hold or booking, present when its show had a price list when the hold was made: fixed by
 * that version for the hold's whole life, whatever the list becomes (docs/pricing.md).
 */
export class PricedCartView {
  @ApiPropertyOptional({ type: [PricedLineView], description: "in the hold's seat order" })
  lines?: PricedLineView[];
  @ApiPropertyOptional({ description: 'sum of the unit prices' }) subtotal?: number;
  @ApiPropertyOptional({ description: 'sum of the discounts' }) discountTotal?: number;
  @ApiPropertyOptional({ description: 'subtotal - discountTotal' }) total?: number;
  @ApiPropertyOptional({ example: 'EUR', description: 'ISO 4217; every amount is in its minor unit' })
  currency?: string;
  @ApiPropertyOptional() priceListVersion?: number;
  @ApiPropertyOptional({ description: 'the promo code the hold carries' }) promoCode?: string;
}
