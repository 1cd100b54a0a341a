import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import helmet, { type HelmetOptions } from 'helmet';

/** What the API's routes use, so a preflight names nothing else. */
const CORS_METHODS = ['GET', 'POST', 'DELETE'];
const CORS_REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-request-id'];
/** Answer headers a browser client acts on: the request id to report, when to retry, a replayed answer. */
const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'idempotent-replayed'];

/** helmet's defaults minus `upgrade-insecure-requests` (why: enableBrowserSecurity). */
const HELMET_OPTIONS: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: true, directives: { 'upgrade-insecure-requests': null } },
};

/**
 * The headers helmet sets for `options`, computed once by running its middleware on a response that only
 * records them. With static options (no per-request nonce or directive function) helmet sets the same
 * headers on every answer, so per request we only copy them. @fastify/helmet rebuilds helmet from the
 * options on every request (parsing the CSP directives each time) in two hooks, one async. A copy beside
 * the library stays only while it saves at least 5 % of CPU per hold: docs/adr/0008-hold-path-shortcuts.md
 * has the measurement and the command that repeats it.
 */
export function helmetHeaders(options: HelmetOptions = HELMET_OPTIONS): [string, string][] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name.toLowerCase(), String(value)]),
    removeHeader: () => undefined, // X-Powered-By: Fastify never sets it
  } as unknown as ServerResponse;
  // bad options throw here, at boot (helmet >= 8.1 throws rather than passing the error on)
  helmet(options)({} as IncomingMessage, recorder, () => undefined);
  return headers;
}

/**
 * CORS and helmet's security headers.
 * - CORS only for the listed origins (CORS_ORIGINS), off when none are: the seat picker at / is on the
 *   API's own origin and needs none. Tokens travel in the Authorization header, never in cookies, so
 *   credentials are not allowed.
 * - helmet's defaults on every answer, minus `upgrade-insecure-requests`: the service is reached over
 *   plain http in development and behind a TLS-terminating proxy in production, and that directive
 *   would make browsers fetch /docs's scripts over https. Its CSP (`script-src 'self'`, inline styles)
 *   suits the Swagger page; the seat picker's files set their own stricter policy
 *   (seat-picker.module.ts), which replaces this one on those answers.
 */
export function enableBrowserSecurity(app: NestFastifyApplication, corsOrigins: string[]): void {
  if (corsOrigins.length > 0) {
    app.enableCors({
      origin: corsOrigins,
      methods: CORS_METHODS,
      allowedHeaders: CORS_REQUEST_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      credentials: false,
      maxAge: 600,
    });
  }
  // set on the raw response, as helmet does: a route's own value (the seat picker's CSP) replaces it
  const headers = helmetHeaders();
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (_req, reply, done) => {
      for (const [name, value] of headers) {
        reply.raw.setHeader(name, value);
      }
      done();
    });
}
