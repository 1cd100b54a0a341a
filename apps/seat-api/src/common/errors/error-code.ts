/**
 * Every code the API answers with, in the error envelope's `code`. Clients branch on these strings: a code
 * is never renamed or given another meaning. Which HTTP status (and default Retry-After) each one gets is
 * decided in one place, error-http.ts; the layers that refuse something name only the code.
 *
 * Besides these, a framework error with a status nobody expects would be answered `HTTP_<status>`
 * (see ErrorEnvelopeFilter); no route of ours produces one.
 */
export enum ErrorCode {
  // ---- the request itself
  /** A field, parameter or header is wrong; `errors: [{ field, message }]` names each. */
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  /** The body is not JSON (or is empty where JSON is expected). */
  MALFORMED_JSON = 'MALFORMED_JSON',
  /** Another malformed request the HTTP layer refused (a bad URL, bytes that are not valid HTTP). */
  BAD_REQUEST = 'BAD_REQUEST',
  UNAUTHORIZED = 'UNAUTHORIZED',
  FORBIDDEN = 'FORBIDDEN',
  /** No such route. */
  NOT_FOUND = 'NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  URI_TOO_LONG = 'URI_TOO_LONG',
  /** The request's headers are over the HTTP server's size limit (refused by its parser). */
  HEADERS_TOO_LARGE = 'HEADERS_TOO_LARGE',
  /** The request did not arrive in full within the HTTP server's time limit. */
  REQUEST_TIMEOUT = 'REQUEST_TIMEOUT',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  // ---- catalogue and seat map
  EVENT_NOT_FOUND = 'EVENT_NOT_FOUND',
  SECTION_NOT_FOUND = 'SECTION_NOT_FOUND',
  /** The event's start + HOLD_EVENT_RETENTION_SECONDS has passed: its seats can no longer be held. */
  EVENT_ENDED = 'EVENT_ENDED',
  /** An admin closed the event's sales: no new holds until they open again (existing holds go on). */
  SALES_CLOSED = 'SALES_CLOSED',
  /** The event is cancelled: no new holds, its settings no longer change. */
  EVENT_CANCELLED = 'EVENT_CANCELLED',
  /** SEAT_MAP_MAX_STREAMS live seat-map streams are open on this instance, or their memory budget is used. */
  TOO_MANY_STREAMS = 'TOO_MANY_STREAMS',
  /** The caller (user, else address) has SEAT_MAP_MAX_STREAMS_PER_CALLER seat-map streams open here. */
  STREAM_LIMIT_EXCEEDED = 'STREAM_LIMIT_EXCEEDED',
  // ---- holds
  /** `errors: [{ seatId }]`: seats the event does not have. */
  SEAT_NOT_FOUND = 'SEAT_NOT_FOUND',
  HOLD_NOT_FOUND = 'HOLD_NOT_FOUND',
  /** `errors: [{ seatId, reason: HELD | BOOKED }]`. */
  SEATS_UNAVAILABLE = 'SEATS_UNAVAILABLE',
  /** `errors: [{ area, free }]`: general-admission areas with fewer free places than asked. */
  SOLD_OUT = 'SOLD_OUT',
  /** `errors: [{ area }]`: general-admission areas the event does not have. */
  AREA_NOT_FOUND = 'AREA_NOT_FOUND',
  HOLD_NOT_ACTIVE = 'HOLD_NOT_ACTIVE',
  HOLD_EXPIRED = 'HOLD_EXPIRED',
  HOLD_CONFIRMED = 'HOLD_CONFIRMED',
  HOLD_LIMIT_EXCEEDED = 'HOLD_LIMIT_EXCEEDED',
  HOLD_LIFETIME_EXCEEDED = 'HOLD_LIFETIME_EXCEEDED',
  EXTENSION_LIMIT_REACHED = 'EXTENSION_LIMIT_REACHED',
  /** The seats are being changed by another request right now (lock contention, a lease lost). */
  BUSY = 'BUSY',
  /** PostgreSQL did not write or read the booking in time: nothing booked by this call. */
  BOOKING_UNAVAILABLE = 'BOOKING_UNAVAILABLE',
  // ---- staff actions
  /** PostgreSQL did not record a staff action in its audit in time: the action was not done. */
  AUDIT_UNAVAILABLE = 'AUDIT_UNAVAILABLE',
  /** No booking of that id in the event (a confirm attempt given up is no booking either). */
  BOOKING_NOT_FOUND = 'BOOKING_NOT_FOUND',
  /** The booking was cancelled already. */
  BOOKING_CANCELLED = 'BOOKING_CANCELLED',
  /** `errors: [{ seatId }]`: seats to unblock that are not blocked. */
  SEAT_NOT_BLOCKED = 'SEAT_NOT_BLOCKED',
  /** `errors: [{ area }]`: an unblock of more places than the area has blocked. */
  PLACES_NOT_BLOCKED = 'PLACES_NOT_BLOCKED',
  // ---- waiting list
  /** No waiting-list entry of that id is the caller's. */
  WAITLIST_ENTRY_NOT_FOUND = 'WAITLIST_ENTRY_NOT_FOUND',
  /** The caller is on the event's waiting list already (an open entry: WAITING or OFFERED). */
  WAITLIST_ENTRY_EXISTS = 'WAITLIST_ENTRY_EXISTS',
  // ---- on-sale queue
  /** The event has no on-sale queue (none set up, or it was switched off). */
  QUEUE_NOT_FOUND = 'QUEUE_NOT_FOUND',
  /** The queue does not take entries yet (`errors: [{ opensAt }]`). */
  QUEUE_NOT_OPEN = 'QUEUE_NOT_OPEN',
  /** The queue is open: its times and order no longer change (pace and cap do, by the live controls). */
  QUEUE_OPEN = 'QUEUE_OPEN',
  /** No queue entry of that id is the caller's. */
  QUEUE_ENTRY_NOT_FOUND = 'QUEUE_ENTRY_NOT_FOUND',
  /** The event's queue is open: a hold needs an admission pass (`errors: [{ joinQueue }]` says where). */
  QUEUE_REQUIRED = 'QUEUE_REQUIRED',
  /** The admission pass is not good for this hold: another event's, another user's, expired, used up, or not issued. */
  ADMISSION_INVALID = 'ADMISSION_INVALID',
  // ---- prices and promo codes
  /** The show has no price list (or not the version asked for). */
  PRICE_LIST_NOT_FOUND = 'PRICE_LIST_NOT_FOUND',
  /** The hold was made while its show had no price list: it has no lines to change or discount. */
  HOLD_NOT_PRICED = 'HOLD_NOT_PRICED',
  /** `errors: [{ field, seatId, ticketType }]`: a hidden ticket type, sold only with a code that unlocks it. */
  TICKET_TYPE_LOCKED = 'TICKET_TYPE_LOCKED',
  /** `errors: [{ field, ticketType, maxPerHold }]`: more lines of a ticket type than one hold may have. */
  TICKET_TYPE_LIMIT_EXCEEDED = 'TICKET_TYPE_LIMIT_EXCEEDED',
  /** No promo code of that id or text in the show (admin reads). */
  PROMO_CODE_NOT_FOUND = 'PROMO_CODE_NOT_FOUND',
  /** The show has a promo code with that text already. */
  PROMO_CODE_EXISTS = 'PROMO_CODE_EXISTS',
  /**
   * A code applied to a hold was refused, nothing changed: `errors: [{ field: 'code', reason }]`, reason
   * UNKNOWN, DISABLED, NOT_YET_VALID, EXPIRED, USED_UP or NOT_APPLICABLE.
   */
  PROMO_CODE_REFUSED = 'PROMO_CODE_REFUSED',
  /**
   * The hold's code can no longer be redeemed at confirm (`errors: [{ reason }]`: USED_UP, DISABLED,
   * EXPIRED): nothing was booked; the hold keeps its code, and can remove it and confirm at list prices.
   */
  PROMO_CODE_UNAVAILABLE = 'PROMO_CODE_UNAVAILABLE',
  // ---- idempotency
  IDEMPOTENCY_IN_PROGRESS = 'IDEMPOTENCY_IN_PROGRESS',
  IDEMPOTENCY_KEY_REUSED = 'IDEMPOTENCY_KEY_REUSED',
  // ---- limits and dependencies
  /** A per-caller rate limit (rate-limit/). */
  RATE_LIMITED = 'RATE_LIMITED',
  /** A 429 from the framework rather than our limiter (kept: it was answered before). */
  TOO_MANY_REQUESTS = 'TOO_MANY_REQUESTS',
  /** Written on the Redis master but not yet on REDIS_WAIT_REPLICAS replicas: a retry is safe. */
  REPLICAS_UNAVAILABLE = 'REPLICAS_UNAVAILABLE',
  /** Redis (the seat store) does not answer. */
  DEPENDENCY_UNAVAILABLE = 'DEPENDENCY_UNAVAILABLE',
  // ---- generic codes for a framework exception of that status (HttpException, Fastify)
  CONFLICT = 'CONFLICT',
  UNPROCESSABLE_ENTITY = 'UNPROCESSABLE_ENTITY',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  /** Anything unexpected: the details are logged under the requestId, never sent. */
  INTERNAL = 'INTERNAL',
}
