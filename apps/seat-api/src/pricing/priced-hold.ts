import { Discount, PricedCart, priceCart } from './price-calculator';
import { defaultTypeOf, PriceList } from './price-list';
import type { HoldPricing } from './hold-pricing';

/**
 * What a hold costs: its seats, each sold as the ticket type its pricing names (its category's default
 * where it names none), under the price-list version it was made under, with its promo code's discount.
 * `categoryOf` gives each seat's category (the show's layout).
 */
export function priceHold(
  list: PriceList,
  seatIds: readonly string[],
  pricing: HoldPricing,
  categoryOf: (seatId: string) => string,
  discount: Discount | null,
): PricedCart {
  const lines = seatIds.map((seatId, i) => {
    const category = categoryOf(seatId);
    const ticketType = pricing.ticketTypes[i] || defaultTypeOf(list, category)?.key;
    if (!ticketType) {
      throw new Error(
        `seat ${seatId}: category ${category} has no default ticket type in version ${list.version}`,
      );
    }
    return { seatId, category, ticketType };
  });
  return priceCart(list, lines, discount);
}
