/**
 * The BookingCancelled outbox record: one entry of the shard's outbox stream per cancelled booking,
 * written by the hold store's Lua in the same atomic step that frees its seats, read back by the outbox
 * relay (as SEAT_EXPIRED_RECORD_FIELDS). `type` carries BOOKING_CANCELLED_TYPE, `seatIds` the freed seats
 * joined by ',' (a seat id never holds one), `cancelledAt` epoch ms.
 */
export const BOOKING_CANCELLED_RECORD_FIELDS = {
  type: 'type',
  eventId: 'eventId',
  bookingId: 'bookingId',
  holdId: 'holdId',
  orderId: 'orderId',
  userId: 'userId',
  seatIds: 'seatIds',
  // its places of general-admission areas, "<area>:<quantity>" joined by ',' (absent: none)
  places: 'places',
  cancelledAt: 'cancelledAt',
} as const;
