/**
 * The SeatExpired outbox record: one stream entry per freed seat, written by the hold store's Lua in the
 * same atomic step that frees the seat, and read back by the outbox relay to build the CloudEvent.
 * Keyed by what each field carries; the value is the field's name in the entry. The hold scripts get
 * these names through their manifest, so the writer and the reader name each field the same way.
 * `type` carries SEAT_EXPIRED_TYPE; `expireAt` and `expiredAt` are epoch ms, `fencingToken` an integer.
 * The places of a general-admission area a hold had are one record per area: `seatId` the area's name,
 * `area` the same and `quantity` how many places (absent from a seat's record).
 */
export const SEAT_EXPIRED_RECORD_FIELDS = {
  type: 'type',
  eventId: 'eventId',
  seatId: 'seatId',
  holdId: 'holdId',
  userId: 'userId',
  expireAt: 'expireAt',
  fencingToken: 'fencingToken',
  expiredAt: 'expiredAt',
  area: 'area',
  quantity: 'quantity',
} as const;
