import { HttpException } from '@nestjs/common';

/** One entry of `errors`: which field or seat, and why. */
export type ApiErrorDetail = object;

/**
 * A client-facing error with a stable machine code. Rendered by ErrorEnvelopeFilter as
 * `{ statusCode, code, message, errors?, requestId }`; `headers` (e.g. Retry-After) are set on the reply.
 */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    readonly errors?: ApiErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message, status);
  }
}
