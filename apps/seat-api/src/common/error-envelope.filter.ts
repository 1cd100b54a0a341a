import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LockBackendError, LockNotAcquiredError } from '@app/distributed-lock';
import { isDatabaseUnavailable } from '@app/database';
import { isRedisUnavailable, ReplicaAckTimeoutError } from '@app/redis';
import { DomainError, ErrorDetail } from './errors/domain-error';
import { ErrorCode } from './errors/error-code';
import { CODE_BY_STATUS, HTTP_ANSWERS } from './errors/error-http';

const logger = new Logger('Errors');

/**
 * Every error leaves in one envelope: `{ statusCode, code, message, errors?, requestId }`. The layers
 * behind it throw DomainError (a code, no status) or the libraries' typed errors; the status and
 * Retry-After come from the one table (errors/error-http.ts). Unknown errors become a 500 whose details
 * stay in the log (keyed by requestId), never in the reply.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') {
      throw exception;
    }
    const req = host.switchToHttp().getRequest<FastifyRequest>();
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof HttpException && isHealthReport(exception.getResponse())) {
      // Terminus's 503 carries the per-dependency report: monitors read that shape, keep it
      void reply.status(exception.getStatus()).send(exception.getResponse());
      return;
    }
    sendErrorEnvelope(exception, req, reply);
  }
}

/**
 * Renders any error as the envelope. Also Fastify's `frameworkErrors` hook uses it, for what the router
 * refuses before Nest sees the request (a path parameter over maxParamLength, a malformed URL).
 */
export function sendErrorEnvelope(exception: unknown, req: FastifyRequest, reply: FastifyReply): void {
  const described = describe(exception);
  const { status, code, errors, headers } = described;
  // the framework's 415 says only "Unsupported Media Type": the client needs to know what to send instead
  const message =
    status === 415 ? `${described.message}: this API takes Content-Type application/json` : described.message;
  // structured: `requestId` is a field an operator can search for (the id the client got)
  const line = { msg: `${req.method} ${req.url} -> ${status} ${code}`, requestId: req.id };
  if (code === ErrorCode.INTERNAL) {
    // the only place the details go: the client gets the requestId to quote
    logger.error({
      ...line,
      error: exception instanceof Error ? (exception.stack ?? exception.message) : String(exception),
    });
  } else if (code === ErrorCode.BUSY) {
    // contention is the normal shape of a flash sale: counted by the lock metrics, not logged per request
    logger.debug(line);
  } else if (status >= 500) {
    logger.warn({ ...line, error: exception instanceof Error ? exception.message : String(exception) });
  }
  void reply
    .headers({ ...headers, 'x-request-id': req.id })
    .status(status)
    .send({ statusCode: status, code, message, ...(errors ? { errors } : {}), requestId: req.id });
}

interface Described {
  status: number;
  /** HTTP_<status> only for a framework error of a status no code is for (none of our routes has one). */
  code: ErrorCode | `HTTP_${number}`;
  message: string;
  errors?: unknown[];
  headers: Record<string, string>;
}

/** A domain refusal's answer: status and default Retry-After from the table, the error's own hint first. */
function answer(
  code: ErrorCode,
  message: string,
  errors?: ErrorDetail[],
  retryAfterSeconds?: number,
): Described {
  const { status, retryAfterSeconds: defaultRetry } = HTTP_ANSWERS[code];
  const retry = retryAfterSeconds ?? defaultRetry;
  return {
    status,
    code,
    message,
    errors,
    headers: retry === undefined ? {} : { 'retry-after': String(retry) },
  };
}

function describe(e: unknown): Described {
  if (e instanceof DomainError) {
    return answer(e.code, e.message, e.details, e.retryAfterSeconds);
  }
  if (e instanceof LockNotAcquiredError) {
    return answer(
      ErrorCode.BUSY,
      'Some of these seats are being changed right now; try again shortly',
      undefined,
      Math.max(1, Math.ceil(Math.min(e.retryAfterMs, 5000) / 1000)),
    );
  }
  if (e instanceof ReplicaAckTimeoutError) {
    // applied on the master, not yet on enough replicas: not acknowledged, a retry is safe (README)
    return answer(
      ErrorCode.REPLICAS_UNAVAILABLE,
      'The change is not yet on enough Redis replicas to survive a failover; try again shortly',
    );
  }
  if (e instanceof LockBackendError || isRedisUnavailable(e)) {
    return answer(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The seat store is unreachable; try again shortly');
  }
  if (isDatabaseUnavailable(e)) {
    // a route that needs PostgreSQL and has no code of its own for it (confirm, staff actions have)
    return answer(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The event store does not answer; try again shortly');
  }
  if (e instanceof HttpException) {
    const status = e.getStatus();
    const body = e.getResponse();
    const message = typeof body === 'object' && body !== null && 'message' in body ? body.message : e.message;
    const text = Array.isArray(message) ? message.join('; ') : String(message);
    // the adapter reports a body that is not JSON as a plain 400: give it its own code
    const code =
      status === 400 && /JSON/i.test(text)
        ? ErrorCode.MALFORMED_JSON
        : (CODE_BY_STATUS[status] ?? `HTTP_${status}`);
    // a code of the table (429 and 503 among them) carries its default Retry-After, as a domain error does
    const retry = code in HTTP_ANSWERS ? HTTP_ANSWERS[code].retryAfterSeconds : undefined;
    return {
      status,
      code,
      message: text,
      headers: retry === undefined ? {} : { 'retry-after': String(retry) },
    };
  }
  // Fastify's own errors (malformed JSON, body too large, bad content type) carry a statusCode
  const fst = e as { statusCode?: number; code?: string; message?: string };
  if (typeof fst?.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    const code =
      fst.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fst.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? ErrorCode.MALFORMED_JSON
        : (CODE_BY_STATUS[fst.statusCode] ?? `HTTP_${fst.statusCode}`);
    return { status: fst.statusCode, code, message: fst.message ?? 'Bad request', headers: {} };
  }
  return answer(ErrorCode.INTERNAL, 'Internal error');
}

function isHealthReport(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'details' in body && 'status' in body;
}
