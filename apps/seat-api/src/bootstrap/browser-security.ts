import helmet from '@fastify/helmet';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/** What the API's routes use, so a preflight names nothing else. */
const CORS_METHODS = ['GET', 'POST', 'DELETE'];
const CORS_REQUEST_HEADERS = ['authorization', 'content-type', 'idempotency-key', 'x-request-id'];
/** Answer headers a browser client acts on: the request id to report, when to retry, a replayed answer. */
const CORS_EXPOSED_HEADERS = ['x-request-id', 'retry-after', 'idempotent-replayed'];

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
export async function enableBrowserSecurity(
  app: NestFastifyApplication,
  corsOrigins: string[],
): Promise<void> {
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
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: true, directives: { 'upgrade-insecure-requests': null } },
  });
}
