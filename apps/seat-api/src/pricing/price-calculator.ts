/**
 * The one price calculator: what a cart (a hold's lines) costs under one price-list version and, maybe, one
 * promo code. Pure and synchronous, integers only (minor units of the list's currency, no floating point):
 * hold answers, hold reads, confirm, booking reads and the cancel amount all get their figures from here,
 * and nothing else computes a price.
 *
 * The rules (docs/pricing.md):
 *   - a line costs its ticket type's price in the list's version (its unit price);
 *   - a promo code discounts only the lines it applies to: of its categories and of its ticket types (a
 *     list left out matches every one);
 *   - percent: the discount of a line is its unit price times the percentage, rounded half up to a whole
 *     minor unit, per line: floor((unitPrice x percent + 50) / 100);
 *   - amount: that many minor units off each line it applies to, at most the line's unit price;
 *   - fixed-price: each line it applies to costs that, when that is less than its unit price;
 *   - so no line costs below 0 and no discount raises a price; the totals are sums of the lines:
 *     subtotal = sum of unit prices, discountTotal = sum of discounts, total = subtotal - discountTotal.
 */

/** A ticket type as the calculator reads it. */
export interface PricedType {
  key: string;
  price: number;
}

/** The part of a price list the calculator reads: each category's ticket types. */
export interface PriceTable {
  currency: string;
  categories: readonly { key: string; ticketTypes: readonly PricedType[] }[];
}

export type DiscountKind = 'percent' | 'amount' | 'fixed-price';

/** What a promo code does to prices (the rest of it, validity and uses, is not the calculator's). */
export interface Discount {
  kind: DiscountKind;
  value: number;
  appliesTo?: { categories?: readonly string[]; ticketTypes?: readonly string[] } | null;
}

/** One line of a cart: a seat, its category, the ticket type it is sold as. */
export interface CartLine {
  seatId: string;
  category: string;
  ticketType: string;
}

export interface PricedLine extends CartLine {
  unitPrice: number;
  discount: number;
}

export interface PricedCart {
  currency: string;
  lines: PricedLine[];
  subtotal: number;
  discountTotal: number;
  total: number;
}

/** Whether `discount` applies to a line of `category` sold as `ticketType`. */
export function discountApplies(discount: Discount, category: string, ticketType: string): boolean {
  const scope = discount.appliesTo;
  return (
    (!scope?.categories || scope.categories.includes(category)) &&
    (!scope?.ticketTypes || scope.ticketTypes.includes(ticketType))
  );
}

/** The discount of one line of `unitPrice` (see the rules above): between 0 and the unit price. */
export function lineDiscount(discount: Discount, unitPrice: number): number {
  switch (discount.kind) {
    case 'percent':
      return Math.floor((unitPrice * discount.value + 50) / 100);
    case 'amount':
      return Math.min(discount.value, unitPrice);
    case 'fixed-price':
      return Math.max(0, unitPrice - discount.value);
  }
}

/** The unit price of `ticketType` in `category`; throws for a type the table does not have. */
export function unitPriceOf(table: PriceTable, category: string, ticketType: string): number {
  const type = table.categories
    .find((c) => c.key === category)
    ?.ticketTypes.find((t) => t.key === ticketType);
  if (!type) {
    throw new Error(`price list has no ticket type ${ticketType} in category ${category}`);
  }
  return type.price;
}

/** Prices `lines` under `table`, with `discount` if given. */
export function priceCart(
  table: PriceTable,
  lines: readonly CartLine[],
  discount?: Discount | null,
): PricedCart {
  let subtotal = 0;
  let discountTotal = 0;
  const priced = lines.map((line): PricedLine => {
    const unitPrice = unitPriceOf(table, line.category, line.ticketType);
    const off =
      discount && discountApplies(discount, line.category, line.ticketType)
        ? lineDiscount(discount, unitPrice)
        : 0;
    subtotal += unitPrice;
    discountTotal += off;
    return {
      seatId: line.seatId,
      category: line.category,
      ticketType: line.ticketType,
      unitPrice,
      discount: off,
    };
  });
  return {
    currency: table.currency,
    lines: priced,
    subtotal,
    discountTotal,
    total: subtotal - discountTotal,
  };
}
