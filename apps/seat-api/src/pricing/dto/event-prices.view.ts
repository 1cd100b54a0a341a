import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PriceList, priceRangeOf } from '../price-list';

export class PublicTicketTypeView {
  @ApiProperty() key!: string;
  @ApiProperty() label!: string;
  @ApiProperty({ description: 'minor units of the currency' }) price!: number;
  @ApiPropertyOptional() maxPerHold?: number;
}

export class CategoryPriceRangeView {
  @ApiProperty({ description: "a category of the show's layout" }) category!: string;
  @ApiPropertyOptional({ description: 'the cheapest ticket of the category (none: sold only with a code)' })
  minPrice?: number;
  @ApiPropertyOptional({ description: 'the dearest ticket of the category' }) maxPrice?: number;
  @ApiProperty({
    type: [PublicTicketTypeView],
    description: 'the types sold without a code; the first is what a seat is sold as by default',
  })
  ticketTypes!: PublicTicketTypeView[];
}

/** What the seat map shows beside the seats: each category's price range and ticket types (public). */
export class EventPricesView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty() priceListVersion!: number;
  @ApiProperty({ example: 'EUR' }) currency!: string;
  @ApiProperty({ type: [CategoryPriceRangeView] }) categories!: CategoryPriceRangeView[];

  /** Hidden types are left out: they are sold only to holds whose code unlocks them. */
  static of(list: PriceList): EventPricesView {
    return {
      eventId: list.eventId,
      priceListVersion: list.version,
      currency: list.currency,
      categories: list.categories.map((c) => {
        const range = priceRangeOf(c);
        return {
          category: c.key,
          ...(range ? { minPrice: range.min, maxPrice: range.max } : {}),
          ticketTypes: c.ticketTypes
            .filter((t) => !t.hidden)
            .map(({ key, label, price, maxPerHold }) => ({
              key,
              label,
              price,
              ...(maxPerHold === undefined ? {} : { maxPerHold }),
            })),
        };
      }),
    };
  }
}
