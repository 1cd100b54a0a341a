import type { ErrorCode } from './error-code';

/** One entry of the envelope's `errors`: which field or seat, and why. */
export type ErrorDetail = object;

export interface DomainErrorOptions {
  /** Rendered as the envelope's `errors`. */
  details?: ErrorDetail[];
  /** Seconds the client should wait before retrying, when this refusal knows better than its code's default. */
  retryAfterSeconds?: number;
}

/**
 * A refusal the client can act on: a stable code, a message for humans, optional details. It says nothing
 * about HTTP: ErrorEnvelopeFilter answers it with the status error-http.ts gives its code, so services and
 * use cases decide what went wrong and the edge alone decides how that looks on the wire.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly details?: ErrorDetail[];
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    // A refusal is an answer, not a fault: no stack trace is captured (nothing logs one for a DomainError,
    // and in a flash sale a 409 is the common answer, so the capture was paid by most requests).
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
