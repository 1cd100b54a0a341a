import type { LogLevel } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Params } from 'nestjs-pino';

export interface LoggingOptions {
  /** Nest's level names (LOG_LEVEL); `log` is pino's `info`, `verbose` its `trace`. */
  level: LogLevel;
  /** `json`: one object per line, for production; `pretty`: one readable coloured line, for a terminal. */
  format: 'json' | 'pretty';
  /** Which process wrote the line (`app` field), when several write to one place. */
  app: string;
}

const PINO_LEVEL: Record<LogLevel, string> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

/** What a client may name its request with: echoed in headers, bodies and logs, so nothing else passes. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request id of an incoming request: the client's `x-request-id` when it is a sane token (so a
 * caller can follow its own id through our logs), else a new UUID. Fastify calls it once per request
 * (`genReqId`); it also stores the id on the raw request, where pino-http reads it, so every log line of
 * the request and the `x-request-id` answer header carry the same id.
 */
export function requestIdOf(raw: IncomingMessage): string {
  const offered = raw.headers['x-request-id'];
  const id = typeof offered === 'string' && SANE_REQUEST_ID.test(offered) ? offered : randomUUID();
  (raw as IncomingMessage & { id?: string }).id = id;
  return id;
}

/** The request id of the request being handled: set for its whole handling, awaits included. */
const requestScope = new AsyncLocalStorage<string>();

/**
 * Runs each request's handling (guards, pipes, the controller and everything it awaits) with its id in
 * `requestScope`, so every log line written meanwhile carries it (loggingParams' mixin). A preHandler
 * hook, after the body is parsed: context set earlier (pino-http's middleware through nestjs-pino, on
 * @fastify/middie) does not reach the handler on this adapter (fastify/middie#124), so nestjs-pino's own
 * request-scoped logger never saw the request. Call it before the app registers its routes.
 */
export function installRequestScope(fastify: FastifyInstance): void {
  fastify.addHook('preHandler', (req, _reply, done) => requestScope.run(req.id, done));
}

/**
 * nestjs-pino settings shared by every app: structured JSON (or one pretty line), no line per request (the
 * service answers thousands a second; errors are logged by the error filter, and every answer is in the
 * `http_request_duration_seconds` metric), and no secrets: Authorization headers are never logged. Every
 * line written while a request is handled carries its `requestId` (installRequestScope), whichever
 * logger writes it; pino-http's middleware is not mounted (it would only add a logger per request).
 */
export function loggingParams(o: LoggingOptions): Params {
  return {
    forRoutes: [],
    pinoHttp: {
      level: PINO_LEVEL[o.level],
      base: { app: o.app },
      autoLogging: false,
      quietReqLogger: true,
      genReqId: (req) => (req as IncomingMessage & { id?: string }).id ?? requestIdOf(req),
      customAttributeKeys: { reqId: 'requestId' },
      // an id the line names itself (the error filter's, a controller's) is kept: pino merges it over this
      mixin: () => {
        const requestId = requestScope.getStore();
        return requestId === undefined ? {} : { requestId };
      },
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      ...(o.format === 'pretty'
        ? {
            transport: {
              target: 'pino-pretty',
              options: {
                singleLine: true,
                colorize: true,
                translateTime: 'SYS:HH:MM:ss.l',
                ignore: 'pid,hostname,app',
              },
            },
          }
        : {}),
    },
  };
}
