import type { LogLevel } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
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

/**
 * nestjs-pino settings shared by both apps: structured JSON (or one pretty line), no line per request (the
 * service answers thousands a second; errors are logged by the error filter, and every answer is in the
 * `http_request_duration_seconds` metric), and no secrets: Authorization headers are never logged.
 * pino-http's middleware is not mounted on any route: under Fastify a middleware runs before the body is
 * parsed and its request context is lost on requests with a body, so the request id is bound by a Fastify
 * hook instead (bindRequestLogContext).
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
      // the id of the request being served, on every line written while it runs (bindRequestLogContext)
      mixin: requestIdMixin,
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

/** The id of the request the current code serves: only the id, nothing else per request. */
const currentRequestId = new AsyncLocalStorage<string>();

/**
 * pino calls it for every line it writes (below the level, none): `requestId` inside a request, nothing
 * outside. A new object each time: pino merges the line's own fields into what the mixin returns.
 */
function requestIdMixin(): object {
  const requestId = currentRequestId.getStore();
  return requestId === undefined ? {} : { requestId };
}

/**
 * Every line logged while a request runs carries `requestId` (and `app`): a Fastify preHandler hook runs
 * the rest of the request with its id in an AsyncLocalStorage, which pino's `mixin` reads per line.
 * preHandler, not a middleware, because it runs after the body is read, so the context survives to the
 * handler for POSTs too. Not nestjs-pino's runInContext: that makes a pino child logger per request
 * (bindings serialised, a Store object), a cost paid by every request whether it logs or not; the mixin
 * costs only on lines actually written, and the service writes none on a successful hold at `warn`.
 */
export function bindRequestLogContext(fastify: FastifyInstance): void {
  fastify.addHook('preHandler', (req, _reply, done) => {
    currentRequestId.run(req.id, done);
  });
}
