import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LockBackendError, LockNotAcquiredError } from '@app/distributed-lock';
import { ReplicaAckTimeoutError } from '@app/redis';
import { ApiError } from './api-error';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_ENTITY',
  429: 'TOO_MANY_REQUESTS',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * Redis connection failures from ioredis surface with these messages when it fails fast (no offline
 * queue, bounded timeout, one retry: see libs/redis); they are not classes we can test with instanceof.
 */
const REDIS_DOWN =
  /Stream isn't writeable|Connection is closed|Command timed out|ECONNREFUSED|enableOfflineQueue|max retries per request/i;

const logger = new Logger('Errors');

/**
 * Every error leaves in one envelope: `{ statusCode, code, message, errors?, requestId }`.
 * Unknown errors become a 500 whose details stay in the log (keyed by requestId), never in the reply.
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
  const { status, code, message, errors, headers } = describe(exception);
  const line = `${req.method} ${req.url} -> ${status} ${code} [${req.id}]`;
  if (code === 'INTERNAL') {
    // the only place the details go: the client gets the requestId to quote
    logger.error(
      `${line}: ${exception instanceof Error ? (exception.stack ?? exception.message) : String(exception)}`,
    );
  } else if (code === 'BUSY') {
    // contention is the normal shape of a flash sale: counted by the lock metrics, not logged per request
    logger.debug(line);
  } else if (status >= 500) {
    logger.warn(`${line}: ${exception instanceof Error ? exception.message : String(exception)}`);
  }
  void reply
    .headers({ ...headers, 'x-request-id': req.id })
    .status(status)
    .send({ statusCode: status, code, message, ...(errors ? { errors } : {}), requestId: req.id });
}

function describe(e: unknown): {
  status: number;
  code: string;
  message: string;
  errors?: unknown[];
  headers: Record<string, string>;
} {
  if (e instanceof ApiError) {
    return {
      status: e.getStatus(),
      code: e.code,
      message: e.message,
      errors: e.errors,
      headers: e.headers,
    };
  }
  if (e instanceof LockNotAcquiredError) {
    return {
      status: 503,
      code: 'BUSY',
      message: 'Some of these seats are being changed right now; try again shortly',
      headers: { 'retry-after': String(Math.max(1, Math.ceil(Math.min(e.retryAfterMs, 5000) / 1000))) },
    };
  }
  if (e instanceof ReplicaAckTimeoutError) {
    // applied on the master, not yet on enough replicas: not acknowledged, a retry is safe (README)
    return {
      status: 503,
      code: 'REPLICAS_UNAVAILABLE',
      message: 'The change is not yet on enough Redis replicas to survive a failover; try again shortly',
      headers: { 'retry-after': '1' },
    };
  }
  if (e instanceof LockBackendError || (e instanceof Error && REDIS_DOWN.test(e.message))) {
    return {
      status: 503,
      code: 'DEPENDENCY_UNAVAILABLE',
      message: 'The seat store is unreachable; try again shortly',
      headers: { 'retry-after': '2' },
    };
  }
  if (e instanceof HttpException) {
    const status = e.getStatus();
    const body = e.getResponse();
    const message = typeof body === 'object' && body !== null && 'message' in body ? body.message : e.message;
    const text = Array.isArray(message) ? message.join('; ') : String(message);
    // the adapter reports a body that is not JSON as a plain 400: give it its own code
    const code =
      status === 400 && /JSON/i.test(text) ? 'MALFORMED_JSON' : (CODE_BY_STATUS[status] ?? `HTTP_${status}`);
    return { status, code, message: text, headers: {} };
  }
  // Fastify's own errors (malformed JSON, body too large, bad content type) carry a statusCode
  const fst = e as { statusCode?: number; code?: string; message?: string };
  if (typeof fst?.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    const code =
      fst.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fst.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
        ? 'MALFORMED_JSON'
        : (CODE_BY_STATUS[fst.statusCode] ?? `HTTP_${fst.statusCode}`);
    return { status: fst.statusCode, code, message: fst.message ?? 'Bad request', headers: {} };
  }
  return {
    status: HttpStatus.INTERNAL_SERVER_ERROR,
    code: 'INTERNAL',
    message: 'Internal error',
    headers: {},
  };
}

function isHealthReport(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'details' in body && 'status' in body;
}
