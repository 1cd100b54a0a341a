import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { BookingEntity } from '@app/database';
import type { HoldRecord, HoldStatus } from '../hold-store';
import { PricedCartView } from '../pricing/dto/priced-cart.view';
import { bookingPrice, PricedSale } from '../pricing/priced-sale';

/** The price fields of a priced hold's view (none for a hold that is not priced). */
function priceFields(sale: PricedSale | null | undefined): PricedCartView {
  if (!sale) {
    return {};
  }
  const { cart } = sale;
  return {
    lines: cart.lines,
    subtotal: cart.subtotal,
    discountTotal: cart.discountTotal,
    total: cart.total,
    currency: cart.currency,
    priceListVersion: sale.version,
    ...(sale.promo ? { promoCode: sale.promo.code } : {}),
  };
}

/** Places of one general-admission area that a hold or booking takes. */
export class PlacesView {
  @ApiProperty({ example: 'FLOOR' }) area!: string;
  @ApiProperty({ example: 2 }) quantity!: number;
}

/**
 * The Hold resource as clients see it. Times come from Redis, so every instance tells the same story. A
 * priced hold (its show had a price list when it was made) carries its lines and sums (PricedCartView).
 */
export class HoldView extends PricedCartView {
  @ApiProperty() holdId!: string;
  @ApiProperty() eventId!: string;
  @ApiProperty() userId!: string;
  @ApiProperty({ enum: ['ACTIVE', 'RELEASED', 'EXPIRED', 'CONFIRMED'] }) status!: Exclude<
    HoldStatus,
    'CONFIRMING'
  >;
  @ApiProperty({ type: [String] }) seatIds!: string[];
  @ApiPropertyOptional({
    type: [PlacesView],
    description: 'places of general-admission areas, by area; absent when the hold has none',
  })
  places?: PlacesView[];
  @ApiProperty() createdAt!: string;
  @ApiProperty() expiresAt!: string;
  @ApiProperty() expiresInSeconds!: number;
  @ApiProperty() extensionsUsed!: number;
  @ApiProperty() fencingToken!: number;
  @ApiPropertyOptional({ description: 'when the hold ended (released, expired or confirmed)' })
  endedAt?: string;

  /** `sale`: what the hold sells for (HoldPrices.saleOf); left out, the view has no prices. */
  static of(h: HoldRecord, sale?: PricedSale | null): HoldView {
    // CONFIRMING is internal: to the client the hold is still ACTIVE until the booking is written
    const status = h.status === 'CONFIRMING' ? 'ACTIVE' : h.status;
    const endedAtMs = h.endedAtMs ?? (h.status === 'EXPIRED' ? h.expireAtMs : null);
    const view: HoldView = {
      holdId: h.holdId,
      eventId: h.eventId,
      userId: h.userId,
      status,
      seatIds: h.seatIds,
      createdAt: new Date(h.createdAtMs).toISOString(),
      expiresAt: new Date(h.expireAtMs).toISOString(),
      expiresInSeconds: status === 'ACTIVE' ? Math.max(0, Math.floor((h.expireAtMs - h.nowMs) / 1000)) : 0,
      extensionsUsed: h.extensionsUsed,
      fencingToken: h.fencingToken,
    };
    if (h.places && h.places.length > 0) {
      view.places = h.places;
    }
    if (endedAtMs) {
      view.endedAt = new Date(endedAtMs).toISOString();
    }
    return Object.assign(view, priceFields(sale));
  }
}

/** A booking; a priced one carries what it was sold for (PricedCartView). */
export class BookingView extends PricedCartView {
  @ApiProperty() bookingId!: string;
  @ApiProperty() holdId!: string;
  @ApiProperty() orderId!: string;
  @ApiProperty() eventId!: string;
  @ApiProperty({ type: [String] }) seatIds!: string[];
  @ApiPropertyOptional({
    type: [PlacesView],
    description: 'places of general-admission areas it sold; absent when none',
  })
  places?: PlacesView[];
  @ApiProperty({ enum: ['CONFIRMED'] }) status!: 'CONFIRMED';

  /** A booking row as its customer sees it (a row the repository reads is always CONFIRMED). */
  static of(b: BookingEntity): BookingView {
    return {
      bookingId: b.id,
      holdId: b.holdId,
      orderId: b.orderId!,
      eventId: b.eventId,
      seatIds: b.seatIds,
      ...(b.places && b.places.length > 0 ? { places: b.places } : {}),
      status: 'CONFIRMED',
      ...bookingPrice(b),
    };
  }
}
