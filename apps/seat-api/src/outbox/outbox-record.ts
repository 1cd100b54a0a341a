import {
  BOOKING_CANCELLED_RECORD_FIELDS as C,
  BOOKING_CANCELLED_TYPE,
  BookingCancelledCloudEvent,
  bookingCancelledEvent,
  SEAT_EXPIRED_RECORD_FIELDS as F,
  SEAT_EXPIRED_TYPE,
  SeatExpiredCloudEvent,
  seatExpiredEvent,
  SeatStatusCloudEvent,
} from '@app/contracts';
import { placesOf, seatStatusFrom } from './status-record';

/** An outbox stream entry as XRANGE returns it: id and the field list XADD wrote. */
export type OutboxEntry = [id: string, fields: string[]];

/**
 * What the outbox carries to Kafka: every seat change, on seat.status; SeatExpired also on seat.expired,
 * which carries nothing else (SeatChangePublisher routes them).
 */
export type OutboxEvent = SeatStatusCloudEvent;

/** The CloudEvent of an outbox record of any type, or null when it cannot become one (see below). */
export function eventFromOutbox(fields: string[]): OutboxEvent | null {
  const byName = fieldsByName(fields);
  switch (byName[C.type]) {
    case BOOKING_CANCELLED_TYPE:
      return bookingCancelledFrom(byName);
    case SEAT_EXPIRED_TYPE:
      return seatExpiredFromOutbox(fields);
    default:
      return seatStatusFrom(byName);
  }
}

export function fieldsByName(fields: string[]): Record<string, string> {
  const byName: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) {
    byName[fields[i]] = fields[i + 1];
  }
  return byName;
}

/** A BookingCancelled record (hold-store/lua/cancel-booking.lua), or null when a field is missing. */
function bookingCancelledFrom(byName: Record<string, string>): BookingCancelledCloudEvent | null {
  const f = (field: keyof typeof C): string | undefined => byName[C[field]];
  const at = Number(f('cancelledAt') ?? NaN);
  const texts = [f('eventId'), f('bookingId'), f('holdId'), f('orderId'), f('userId')];
  const places = placesOf(f('places'));
  if (texts.some((t) => !t) || f('seatIds') === undefined || !Number.isFinite(at) || places === null) {
    return null;
  }
  return bookingCancelledEvent(
    {
      eventId: f('eventId')!,
      bookingId: f('bookingId')!,
      holdId: f('holdId')!,
      orderId: f('orderId')!,
      userId: f('userId')!,
      seatIds: f('seatIds') ? f('seatIds')!.split(',') : [],
      ...(places && places.length > 0 ? { places } : {}),
    },
    new Date(at),
  );
}

/**
 * Builds the SeatExpired CloudEvent from the record a hold script wrote (SEAT_EXPIRED_RECORD_FIELDS;
 * hold-store/lua/hold-lifecycle.lua, `expire`), or null when a field is missing (a record written by a
 * script of another version): such a record could never be published. The entry id plays no part: the
 * event's id names the hold and seat.
 */
export function seatExpiredFromOutbox(fields: string[]): SeatExpiredCloudEvent | null {
  const byName = fieldsByName(fields);
  const f = (field: keyof typeof F): string | undefined => byName[F[field]];
  const texts = [f('eventId'), f('seatId'), f('holdId'), f('userId')];
  const numbers = [f('expireAt'), f('expiredAt'), f('fencingToken')].map((v) => (v ? Number(v) : NaN));
  if (f('type') !== SEAT_EXPIRED_TYPE || texts.some((t) => !t) || numbers.some((n) => !Number.isFinite(n))) {
    return null;
  }
  // the places of a general-admission area: both fields or neither
  const quantity = f('quantity') === undefined ? undefined : Number(f('quantity'));
  if (
    (f('area') === undefined) !== (quantity === undefined) ||
    (quantity !== undefined && !(quantity >= 1))
  ) {
    return null;
  }
  const places = f('area') ? { area: f('area')!, quantity: quantity! } : {};
  return seatExpiredEvent(
    {
      eventId: f('eventId')!,
      seatId: f('seatId')!,
      holdId: f('holdId')!,
      userId: f('userId')!,
      expireAt: new Date(Number(f('expireAt'))).toISOString(),
      fencingToken: Number(f('fencingToken')),
      ...places,
    },
    new Date(Number(f('expiredAt'))),
  );
}
