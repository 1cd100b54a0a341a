import { BOOKING_CANCELLED_TYPE, BookingCancelledCloudEvent } from './booking-cancelled.event';

/** A message that is not a BookingCancelled this contract describes. */
export class BookingCancelledSchemaError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'BookingCancelledSchemaError';
  }
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Checks a Kafka message value (bytes, text or parsed JSON) is a BookingCancelled CloudEvent and returns it. */
export function parseBookingCancelled(value: unknown): BookingCancelledCloudEvent {
  let ce: unknown = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  if (typeof ce === 'string') {
    try {
      ce = JSON.parse(ce);
    } catch {
      throw new BookingCancelledSchemaError('value is not JSON');
    }
  }
  const e = (typeof ce === 'object' && ce !== null ? ce : {}) as Partial<BookingCancelledCloudEvent>;
  if (e.specversion !== '1.0' || e.type !== BOOKING_CANCELLED_TYPE) {
    throw new BookingCancelledSchemaError(`not a BookingCancelled CloudEvent`);
  }
  const d = e.data;
  if (
    !isString(e.id) ||
    !d ||
    !isString(d.eventId) ||
    !isString(d.bookingId) ||
    d.bookingId !== e.id ||
    !isString(d.holdId) ||
    !isString(d.orderId) ||
    !isString(d.userId) ||
    !Array.isArray(d.seatIds) ||
    !d.seatIds.every(isString)
  ) {
    throw new BookingCancelledSchemaError('data does not match the BookingCancelled schema');
  }
  return e as BookingCancelledCloudEvent;
}
