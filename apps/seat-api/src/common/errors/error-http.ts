import { ErrorCode } from './error-code';

export interface HttpAnswer {
  status: number;
  /** Retry-After (seconds) sent with this code unless the error carries its own hint. */
  retryAfterSeconds?: number;
}

/**
 * The one mapping from error code to HTTP: the status of each code and the Retry-After it carries by
 * default. Typed over every ErrorCode, so a new code cannot be added without its status. Read by
 * ErrorEnvelopeFilter (the replies) and by the OpenAPI decorator (the documented answers).
 */
export const HTTP_ANSWERS: Readonly<Record<ErrorCode, HttpAnswer>> = {
  [ErrorCode.VALIDATION_FAILED]: { status: 400 },
  [ErrorCode.MALFORMED_JSON]: { status: 400 },
  [ErrorCode.BAD_REQUEST]: { status: 400 },
  [ErrorCode.UNAUTHORIZED]: { status: 401 },
  [ErrorCode.FORBIDDEN]: { status: 403 },
  [ErrorCode.NOT_FOUND]: { status: 404 },
  [ErrorCode.EVENT_NOT_FOUND]: { status: 404 },
  [ErrorCode.SECTION_NOT_FOUND]: { status: 404 },
  [ErrorCode.SEAT_NOT_FOUND]: { status: 404 },
  [ErrorCode.AREA_NOT_FOUND]: { status: 404 },
  [ErrorCode.HOLD_NOT_FOUND]: { status: 404 },
  [ErrorCode.METHOD_NOT_ALLOWED]: { status: 405 },
  [ErrorCode.REQUEST_TIMEOUT]: { status: 408 },
  [ErrorCode.CONFLICT]: { status: 409 },
  [ErrorCode.SEATS_UNAVAILABLE]: { status: 409 },
  [ErrorCode.SOLD_OUT]: { status: 409 },
  [ErrorCode.HOLD_NOT_ACTIVE]: { status: 409 },
  [ErrorCode.HOLD_EXPIRED]: { status: 409 },
  [ErrorCode.HOLD_CONFIRMED]: { status: 409 },
  [ErrorCode.EVENT_ENDED]: { status: 409 },
  [ErrorCode.SALES_CLOSED]: { status: 409 },
  [ErrorCode.EVENT_CANCELLED]: { status: 409 },
  // the first request with this key is still running: it will have answered in a moment
  [ErrorCode.IDEMPOTENCY_IN_PROGRESS]: { status: 409, retryAfterSeconds: 1 },
  [ErrorCode.PAYLOAD_TOO_LARGE]: { status: 413 },
  [ErrorCode.URI_TOO_LONG]: { status: 414 },
  [ErrorCode.UNSUPPORTED_MEDIA_TYPE]: { status: 415 },
  [ErrorCode.HEADERS_TOO_LARGE]: { status: 431 },
  [ErrorCode.UNPROCESSABLE_ENTITY]: { status: 422 },
  [ErrorCode.HOLD_LIMIT_EXCEEDED]: { status: 422 },
  [ErrorCode.HOLD_LIFETIME_EXCEEDED]: { status: 422 },
  [ErrorCode.EXTENSION_LIMIT_REACHED]: { status: 422 },
  [ErrorCode.IDEMPOTENCY_KEY_REUSED]: { status: 422 },
  // the limiter always knows when its window ends (the error's hint); 1 s only if it ever did not
  [ErrorCode.RATE_LIMITED]: { status: 429, retryAfterSeconds: 1 },
  // the generic codes have a default too, so no 429 or 503 code goes without Retry-After
  [ErrorCode.TOO_MANY_REQUESTS]: { status: 429, retryAfterSeconds: 1 },
  // one of the caller's own streams has to close first: a page that reconnects in a loop should not spin
  [ErrorCode.STREAM_LIMIT_EXCEEDED]: { status: 429, retryAfterSeconds: 5 },
  [ErrorCode.INTERNAL]: { status: 500 },
  [ErrorCode.BUSY]: { status: 503, retryAfterSeconds: 1 },
  [ErrorCode.BOOKING_UNAVAILABLE]: { status: 503, retryAfterSeconds: 2 },
  [ErrorCode.AUDIT_UNAVAILABLE]: { status: 503, retryAfterSeconds: 2 },
  [ErrorCode.BOOKING_NOT_FOUND]: { status: 404 },
  [ErrorCode.BOOKING_CANCELLED]: { status: 409 },
  [ErrorCode.SEAT_NOT_BLOCKED]: { status: 409 },
  [ErrorCode.PLACES_NOT_BLOCKED]: { status: 409 },
  [ErrorCode.WAITLIST_ENTRY_NOT_FOUND]: { status: 404 },
  [ErrorCode.WAITLIST_ENTRY_EXISTS]: { status: 409 },
  [ErrorCode.QUEUE_NOT_FOUND]: { status: 404 },
  [ErrorCode.QUEUE_NOT_OPEN]: { status: 409 },
  [ErrorCode.QUEUE_OPEN]: { status: 409 },
  [ErrorCode.QUEUE_ENTRY_NOT_FOUND]: { status: 404 },
  [ErrorCode.QUEUE_REQUIRED]: { status: 409 },
  [ErrorCode.ADMISSION_INVALID]: { status: 403 },
  [ErrorCode.PRICE_LIST_NOT_FOUND]: { status: 404 },
  [ErrorCode.HOLD_NOT_PRICED]: { status: 409 },
  [ErrorCode.TICKET_TYPE_LOCKED]: { status: 422 },
  [ErrorCode.TICKET_TYPE_LIMIT_EXCEEDED]: { status: 422 },
  [ErrorCode.PROMO_CODE_NOT_FOUND]: { status: 404 },
  [ErrorCode.PROMO_CODE_EXISTS]: { status: 409 },
  [ErrorCode.PROMO_CODE_REFUSED]: { status: 422 },
  [ErrorCode.PROMO_CODE_UNAVAILABLE]: { status: 409 },
  [ErrorCode.REPLICAS_UNAVAILABLE]: { status: 503, retryAfterSeconds: 1 },
  [ErrorCode.DEPENDENCY_UNAVAILABLE]: { status: 503, retryAfterSeconds: 2 },
  [ErrorCode.TOO_MANY_STREAMS]: { status: 503, retryAfterSeconds: 5 },
  // generic too (see TOO_MANY_REQUESTS): 2 s, as for a dependency that does not answer
  [ErrorCode.SERVICE_UNAVAILABLE]: { status: 503, retryAfterSeconds: 2 },
};

/** The code of a framework exception (Nest's HttpException, Fastify's errors), which knows only a status. */
export const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: ErrorCode.BAD_REQUEST,
  401: ErrorCode.UNAUTHORIZED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  408: ErrorCode.REQUEST_TIMEOUT,
  409: ErrorCode.CONFLICT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  414: ErrorCode.URI_TOO_LONG,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  422: ErrorCode.UNPROCESSABLE_ENTITY,
  429: ErrorCode.TOO_MANY_REQUESTS,
  431: ErrorCode.HEADERS_TOO_LARGE,
  503: ErrorCode.SERVICE_UNAVAILABLE,
};

export const httpStatusOf = (code: ErrorCode): number => HTTP_ANSWERS[code].status;
