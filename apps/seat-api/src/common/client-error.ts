import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode } from './errors/error-code';
import { httpStatusOf } from './errors/error-http';

const logger = new Logger('Errors');

/** What Node's HTTP server reports with `clientError`: its parser's errors carry a code and a reason. */
type ClientError = Error & { code?: string; reason?: string };

function describe(error: ClientError): { code: ErrorCode; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: ErrorCode.REQUEST_TIMEOUT, message: 'The request did not arrive in time' };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { code: ErrorCode.HEADERS_TOO_LARGE, message: 'The request headers are over the size limit' };
  }
  if (error.code === 'HPE_INVALID_EOF_STATE') {
    return { code: ErrorCode.BAD_REQUEST, message: 'The connection ended before the request was complete' };
  }
  // the parser's reason is one of its fixed texts ("Invalid character in chunk size"), never the input
  return {
    code: ErrorCode.BAD_REQUEST,
    message: `The request is not valid HTTP: ${error.reason ?? error.message}`,
  };
}

/**
 * Fastify's `clientErrorHandler`: answers what Node's HTTP parser refuses before a request exists (broken
 * chunked encoding, Content-Length with Transfer-Encoding, a body cut short, bytes a request line may not
 * hold, headers too large, a request too slow) in the one error envelope, with a request id in the body
 * and in x-request-id like every other answer, then closes the connection: after a parse error nothing
 * more on it can be read reliably. Fastify's default answers `{"error":"Bad Request","message":"Client
 * Error"}`, with neither a code nor a request id.
 */
export function answerClientError(error: ClientError, socket: Socket): void {
  // a reset connection has nobody left to answer (as Fastify's default handler)
  if (error.code === 'ECONNRESET' || socket.destroyed) {
    return;
  }
  const { code, message } = describe(error);
  const status = httpStatusOf(code);
  const requestId = randomUUID();
  // client faults, as 4xx answers of routes are: not worth a line each unless debugging
  logger.debug({ msg: `HTTP parser refused a request -> ${status} ${code}`, requestId, reason: error.code });
  if (socket.writable) {
    const body = JSON.stringify({ statusCode: status, code, message, requestId });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n` +
        'connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
