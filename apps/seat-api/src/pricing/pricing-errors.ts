import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';

export const priceListNotFound = (eventId: string, version?: number) =>
  new DomainError(
    ErrorCode.PRICE_LIST_NOT_FOUND,
    version === undefined
      ? `Event ${eventId} has no price list`
      : `Event ${eventId} has no price list version ${version}`,
  );

export const holdNotPriced = (holdId: string) =>
  new DomainError(
    ErrorCode.HOLD_NOT_PRICED,
    `Hold ${holdId} was made while its show had no price list: it has no ticket types or prices`,
  );

export const unknownTicketType = (field: string, category: string, ticketType: string) =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'No such ticket type', {
    details: [{ field, message: `category ${category} has no ticket type ${ticketType}` }],
  });

export const ticketTypeLocked = (field: string, seatId: string, ticketType: string | null) =>
  new DomainError(
    ErrorCode.TICKET_TYPE_LOCKED,
    ticketType === null
      ? `Seat ${seatId}: its category has no ticket type sold without a promo code; name one the hold's code unlocks`
      : `Ticket type ${ticketType} is sold only with a promo code that unlocks it; apply one to the hold first`,
    { details: [{ field, seatId, ticketType }] },
  );

export const ticketTypeLimitExceeded = (field: string, ticketType: string, maxPerHold: number) =>
  new DomainError(
    ErrorCode.TICKET_TYPE_LIMIT_EXCEEDED,
    `At most ${maxPerHold} ticket(s) of type ${ticketType} per hold`,
    { details: [{ field, ticketType, maxPerHold }] },
  );

/** Why a promo code applied to a hold is refused. */
export type PromoRefusalReason =
  'UNKNOWN' | 'DISABLED' | 'NOT_YET_VALID' | 'EXPIRED' | 'USED_UP' | 'NOT_APPLICABLE';

const REFUSAL_MESSAGES: Record<PromoRefusalReason, string> = {
  UNKNOWN: 'No such promo code for this show',
  DISABLED: 'This promo code has been disabled',
  NOT_YET_VALID: 'This promo code is not valid yet',
  EXPIRED: 'This promo code has expired',
  USED_UP: 'This promo code has been used as many times as it may be',
  NOT_APPLICABLE: 'This promo code applies to none of the tickets in this hold',
};

export const promoCodeRefused = (reason: PromoRefusalReason) =>
  new DomainError(ErrorCode.PROMO_CODE_REFUSED, REFUSAL_MESSAGES[reason], {
    details: [{ field: 'code', reason }],
  });

/** At confirm: the hold's code cannot be redeemed any more; nothing was booked. */
export const promoCodeUnavailable = (code: string, reason: Exclude<PromoRefusalReason, 'NOT_APPLICABLE'>) =>
  new DomainError(
    ErrorCode.PROMO_CODE_UNAVAILABLE,
    `${REFUSAL_MESSAGES[reason]} (${code}); nothing was booked. Remove the code from the hold to book at list prices`,
    { details: [{ field: 'promoCode', reason }] },
  );

export const promoCodeNotFound = (code: string) =>
  new DomainError(ErrorCode.PROMO_CODE_NOT_FOUND, `No promo code ${code} in this show`);

export const promoCodeExists = (code: string) =>
  new DomainError(ErrorCode.PROMO_CODE_EXISTS, `The show has a promo code ${code} already`);
