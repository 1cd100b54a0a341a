import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { PriceList } from '../price-list';

export class TicketTypeView {
  @ApiProperty() key!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ description: 'minor units of the currency' }) price!: number;
  @ApiPropertyOptional() maxPerHold?: number;
  @ApiPropertyOptional({ enum: [true], description: 'sold only with a promo code that unlocks it' })
  hidden?: true;
}

export class CategoryPricesView {
  @ApiProperty() key!: string;
  @ApiProperty({ type: [TicketTypeView] }) ticketTypes!: TicketTypeView[];
}

/** One version of a show's price list, as staff read it (hidden types included). */
export class PriceListView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ description: 'goes up by one with every change' }) version!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ type: [CategoryPricesView] }) categories!: CategoryPricesView[];
  @ApiProperty({ description: 'the admin who set this version' }) createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;

  static of(list: PriceList): PriceListView {
    return {
      eventId: list.eventId,
      version: list.version,
      currency: list.currency,
      categories: list.categories,
      createdBy: list.createdBy,
      createdAt: list.createdAt.toISOString(),
    };
  }
}
