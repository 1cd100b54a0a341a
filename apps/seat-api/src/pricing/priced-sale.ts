import type { BookedLine, BookingEntity } from '@app/database';
import type { BookingPriceData } from '@app/contracts';
import type { PricedCart } from './price-calculator';

/**
 * What a hold is sold for: its cart priced under its price-list version, and the promo code it carries
 * (counted at confirm, in the booking's transaction). Made by HoldPrices from the hold; stored in the
 * booking as it is, so a booking read, a cancel and HoldConfirmed tell the same figures.
 */
export interface PricedSale {
  version: number;
  cart: PricedCart;
  promo: { id: string; code: string } | null;
}

/** The booking's price columns for a sale (all null for an unpriced hold). */
export function saleColumns(
  sale: PricedSale | null,
): Pick<
  BookingEntity,
  | 'priceListVersion'
  | 'currency'
  | 'lines'
  | 'subtotal'
  | 'discountTotal'
  | 'total'
  | 'promoCodeId'
  | 'promoCode'
> {
  if (!sale) {
    return {
      priceListVersion: null,
      currency: null,
      lines: null,
      subtotal: null,
      discountTotal: null,
      total: null,
      promoCodeId: null,
      promoCode: null,
    };
  }
  const { cart } = sale;
  return {
    priceListVersion: sale.version,
    currency: cart.currency,
    lines: cart.lines.map(({ seatId, category, ticketType, unitPrice, discount }): BookedLine => ({
      seatId,
      category,
      ticketType,
      unitPrice,
      discount,
    })),
    subtotal: cart.subtotal,
    discountTotal: cart.discountTotal,
    total: cart.total,
    promoCodeId: sale.promo?.id ?? null,
    promoCode: sale.promo?.code ?? null,
  };
}

/** What a booking was sold for, as its views and HoldConfirmed tell it; {} for an unpriced one. */
export function bookingPrice(b: BookingEntity): BookingPriceData {
  if (b.total === null || b.total === undefined || b.lines === null || b.currency === null) {
    return {};
  }
  return {
    currency: b.currency,
    priceListVersion: b.priceListVersion ?? undefined,
    ...(b.promoCode ? { promoCode: b.promoCode } : {}),
    lines: b.lines,
    subtotal: b.subtotal ?? 0,
    discountTotal: b.discountTotal ?? 0,
    total: b.total,
  };
}
