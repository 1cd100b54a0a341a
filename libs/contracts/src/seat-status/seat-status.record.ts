/**
 * The seat-status outbox record: one entry of the shard's outbox stream per change, written by the hold
 * store's Lua in the same atomic step as the change and read back by the outbox relay (as
 * SEAT_EXPIRED_RECORD_FIELDS, which a SeatExpired record keeps). Keyed by what each field carries; the value
 * is the field's name in the entry. `type` is one of SEAT_STATUS_TYPES; a record carries the fields its
 * type's data needs (SeatsBlocked and SeatsUnblocked have no hold: actionId instead): `seatIds` joined by ',' (a seat id never holds one), `expireAt`, `offerExpiresAt` and
 * `at` (when the change was made) epoch ms, `extension` an integer. A StaffActionRecorded carries actionId,
 * actor, action, target and its staff reason in `reason` ('' for none), and no seatIds.
 */
export const SEAT_STATUS_RECORD_FIELDS = {
  type: 'type',
  eventId: 'eventId',
  holdId: 'holdId',
  userId: 'userId',
  seatIds: 'seatIds',
  expireAt: 'expireAt',
  extension: 'extension',
  reason: 'reason',
  orderId: 'orderId',
  entryId: 'entryId',
  offerExpiresAt: 'offerExpiresAt',
  actionId: 'actionId',
  actor: 'actor',
  action: 'action',
  target: 'target',
  at: 'at',
  // a hold's places of general-admission areas, "<area>:<quantity>" joined by ',' (absent: none)
  places: 'places',
  // a HoldConfirmed's BookingPriceData as JSON ('' or absent: the hold was not priced)
  price: 'price',
  // the on-sale queue's records (queue.event.ts); times epoch ms, numbers integers
  opensAt: 'opensAt',
  salesStartAt: 'salesStartAt',
  order: 'order',
  admitPerMinute: 'admitPerMinute',
  maxActiveShoppers: 'maxActiveShoppers',
  letIn: 'letIn',
  number: 'number',
  passExpiresAt: 'passExpiresAt',
  activeShoppers: 'activeShoppers',
} as const;
