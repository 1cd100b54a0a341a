/**
 * What a hold keeps to be priced for its whole life, stored with it in Redis by the hold's own steps (an
 * opaque text to the hold store: hold-store/lua/hold-records.lua, its last field): the price-list version
 * it was made under, the promo code it carries, and the ticket type of each seat, in the hold's seat order.
 *
 * Text form `<version>|<code>|<type>,<type>,...`: a type left empty is its category's default (the first
 * type not hidden, in that version), and empty parts at the end are left out, so an ordinary hold of the
 * default types keeps only its version ("3"). Ticket type keys and codes never hold '|' or ','
 * (price-list.dto.ts, promo-code.dto.ts). '' is a hold made while its show had no price list: not priced.
 */
export interface HoldPricing {
  version: number;
  /** The promo code (upper-case), or null. */
  promoCode: string | null;
  /** One per seat, in the hold's seat order; '' is the category's default type. */
  ticketTypes: string[];
}

export function encodeHoldPricing(p: HoldPricing): string {
  const types = p.ticketTypes.some((t) => t !== '') ? p.ticketTypes.join(',') : '';
  const parts = [String(p.version), p.promoCode ?? '', types];
  while (parts.length > 1 && parts[parts.length - 1] === '') {
    parts.pop();
  }
  return parts.join('|');
}

/** The pricing of a hold of `seats` seats, or null for an unpriced hold (''). */
export function decodeHoldPricing(text: string, seats: number): HoldPricing | null {
  if (text === '') {
    return null;
  }
  const [version, code = '', types = ''] = text.split('|');
  const ticketTypes = types === '' ? [] : types.split(',');
  while (ticketTypes.length < seats) {
    ticketTypes.push('');
  }
  return { version: Number(version), promoCode: code === '' ? null : code, ticketTypes };
}
