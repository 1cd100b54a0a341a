/**
 * The BookingCancelled contract: what the seat API publishes when box-office staff cancel a booking and
 * its seats become available again. One CloudEvents 1.0 event in structured JSON mode per booking, on
 * `seat.status` alone (every seat change, keyed by the show, so one show's events stay in order: a seat
 * freed by a cancellation and then held and expired reads in that order); never on `seat.expired`, whose
 * consumers were built for SeatExpired only. A consumer tells the types apart by `type` (the `ce_type`
 * header) and skips one it does not handle; a waiting list offers the freed seats from here.
 */
import { CloudEvent, cloudEvent } from '../cloud-event';

/** CloudEvents `type`. */
export const BOOKING_CANCELLED_TYPE = 'BookingCancelled';

export interface BookingCancelledData {
  eventId: string;
  bookingId: string;
  holdId: string;
  orderId: string;
  /** The customer whose booking it was. */
  userId: string;
  /** The seats made available again by this cancellation (a seat Redis no longer had as booked is left out). */
  seatIds: string[];
  /** The places of general-admission areas it had booked, now free again; absent when it had none. */
  places?: { area: string; quantity: number }[];
}

/**
 * id and subject the booking id (a booking is cancelled at most once, so whatever publishes it twice
 * gives one id); time when the seats were freed.
 */
export type BookingCancelledCloudEvent = CloudEvent<typeof BOOKING_CANCELLED_TYPE, BookingCancelledData>;

/** The event for one cancelled booking; `cancelledAt` is when its seats were freed (`time`). */
export function bookingCancelledEvent(
  data: BookingCancelledData,
  cancelledAt: Date,
): BookingCancelledCloudEvent {
  return cloudEvent(BOOKING_CANCELLED_TYPE, data.bookingId, data.bookingId, data, cancelledAt);
}
