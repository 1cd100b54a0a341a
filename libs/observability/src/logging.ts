import type { LogLevel } from '@nestjs/common';
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

/**
 * nestjs-pino settings shared by both apps: structured JSON (or one pretty line), no line per request (the
 * service answers thousands a second; errors are logged by the error filter, and every answer is in the
 * `http_request_duration_seconds` metric), and no secrets: Authorization headers are never logged.
 * pino-http's middleware is not mounted on any route, and no AsyncLocalStorage carries the request id to
 * every line: on Node 20 one AsyncLocalStorage in use puts hooks on every promise of the process, which
 * cost the seat API about 30 % of its CPU per hold (bench:http, with the lock's AsyncLocalStorage
 * too). The lines that say what a request did are written by its controller, which passes the
 * request id (`requestId` field); the error filter names it on every 5xx line.
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
