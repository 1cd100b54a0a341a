import type { PriceListCategory, PriceListTicketType } from '@app/database';

/** One version of a show's price list, as the pricing module keeps it (never changes once made). */
export interface PriceList {
  eventId: string;
  version: number;
  currency: string;
  categories: PriceListCategory[];
  createdAt: Date;
  createdBy: string;
}

export type { PriceListCategory, PriceListTicketType };

export function categoryOf(list: PriceList, category: string): PriceListCategory | undefined {
  return list.categories.find((c) => c.key === category);
}

export function ticketTypeOf(
  list: PriceList,
  category: string,
  ticketType: string,
): PriceListTicketType | undefined {
  return categoryOf(list, category)?.ticketTypes.find((t) => t.key === ticketType);
}

/** A category's default ticket type: its first type that is not hidden (undefined: all are hidden). */
export function defaultTypeOf(list: PriceList, category: string): PriceListTicketType | undefined {
  return categoryOf(list, category)?.ticketTypes.find((t) => !t.hidden);
}

/** The cheapest and dearest ticket type of a category that is sold without a code. */
export function priceRangeOf(category: PriceListCategory): { min: number; max: number } | null {
  const prices = category.ticketTypes.filter((t) => !t.hidden).map((t) => t.price);
  return prices.length === 0 ? null : { min: Math.min(...prices), max: Math.max(...prices) };
}
