import { defaultTypeOf, PriceList, ticketTypeOf } from './price-list';
import { ticketTypeLimitExceeded, ticketTypeLocked, unknownTicketType } from './pricing-errors';
import type { CartLine } from './price-calculator';

/** A line as a request names it: its ticket type, or '' for the category's default. */
export interface WantedLine {
  seatId: string;
  category: string;
  ticketType: string;
  /** Where the request names this line's type (`seats[2].ticketType`), for the error's `field`. */
  field: string;
}

/**
 * Checks the lines a hold would have under `list` and resolves each default ('') to its type; throws the
 * refusal of the first rule broken, nothing else done:
 *   - a type the line's category does not have in this version: 400 VALIDATION_FAILED;
 *   - a hidden type, unless `unlocked` (the hold's promo code's) names it: 422 TICKET_TYPE_LOCKED (also a
 *     default asked of a category whose types are all hidden);
 *   - more lines of a type than its maxPerHold: 422 TICKET_TYPE_LIMIT_EXCEEDED.
 */
export function checkedLines(
  list: PriceList,
  wanted: readonly WantedLine[],
  unlocked: readonly string[],
): CartLine[] {
  const counts = new Map<string, number>();
  const lines = wanted.map((w): CartLine => {
    const type =
      w.ticketType === '' ? defaultTypeOf(list, w.category) : ticketTypeOf(list, w.category, w.ticketType);
    if (!type) {
      if (w.ticketType === '') {
        throw ticketTypeLocked(w.field, w.seatId, null);
      }
      throw unknownTicketType(w.field, w.category, w.ticketType);
    }
    if (type.hidden && !unlocked.includes(type.key)) {
      throw ticketTypeLocked(w.field, w.seatId, type.key);
    }
    const count = (counts.get(`${w.category}\n${type.key}`) ?? 0) + 1;
    counts.set(`${w.category}\n${type.key}`, count);
    if (type.maxPerHold !== undefined && count > type.maxPerHold) {
      throw ticketTypeLimitExceeded(w.field, type.key, type.maxPerHold);
    }
    return { seatId: w.seatId, category: w.category, ticketType: type.key };
  });
  return lines;
}

/** The type to store for a line: '' when it is its category's default (the stored form's shorthand). */
export function storedType(list: PriceList, line: CartLine): string {
  return defaultTypeOf(list, line.category)?.key === line.ticketType ? '' : line.ticketType;
}
