import { VersioningType } from '@nestjs/common';
import type { INestApplication, NestApplicationOptions } from '@nestjs/common';
import { AbstractHttpAdapter, NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { Logger } from 'nestjs-pino';
import { installRequestScope, recordHttpMetrics, requestIdOf } from '@app/observability';
import { AppModule } from '../app.module';
import { answerClientError } from '../common/client-error';
import { ErrorEnvelopeFilter, sendErrorEnvelope } from '../common/error-envelope.filter';
import { installJsonBodyParser } from '../common/json-body';
import { createValidationPipe } from '../common/validation';
import { enableBrowserSecurity } from './browser-security';
import { enableGracefulShutdown } from './graceful-shutdown';
import { setUpAsyncApi } from './openapi/asyncapi';
import { setUpOpenApi } from './openapi/openapi';

/**
 * Boot lines wait for the pino logger (so every line has one format) and are printed once it is in
 * place. If boot fails first (a bad variable: the config provider validates when the app is created),
 * they stay unprinted and the error is thrown to the entry point, which prints a configuration error as
 * the list of variables without a stack trace (exitOnBootFailure); Nest would otherwise print it with
 * its stack, then exit by itself.
 */
const BOOT_LOGGING: NestApplicationOptions = { bufferLogs: true, autoFlushLogs: false, abortOnError: false };

/** A compiled module that creates the app instead of NestFactory: a test's TestingModule (overrideProvider). */
export interface SeatApiModuleRef {
  createNestApplication<T extends INestApplication>(
    adapter: AbstractHttpAdapter,
    options?: NestApplicationOptions,
  ): T;
}

/**
 * Builds the HTTP application exactly as production runs it; e2e tests call this too (optionally with
 * their own compiled AppModule), so they exercise the same adapter, limits, filters and docs. Everything
 * configurable comes from the injected AppConfig, resolved when the app is created. The caller decides
 * when to listen.
 */
export async function createSeatApi(moduleRef?: SeatApiModuleRef): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // the client's x-request-id only when it is a sane token (it is echoed back and logged), else a UUID
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Nest logs requests that matter (errors); Fastify's per-request log would double the volume.
    logger: false,
    // what the router refuses before Nest runs (a path parameter over maxParamLength, a bad URL)
    // still gets the one envelope
    frameworkErrors: (error: Error, req: FastifyRequest, reply: FastifyReply) =>
      sendErrorEnvelope(error, req, reply),
    // and what Node's HTTP parser refuses before there is a request (bad chunking, a body cut short)
    clientErrorHandler: answerClientError,
  });
  // JSON only: Fastify's own JSON parser (honours bodyLimit); Nest's urlencoded parser and Fastify's
  // text/plain one are left out, so any other body is a 415 instead of a string fed to validation
  adapter.getInstance().removeContentTypeParser('text/plain');
  // the same JSON parser, then refuses bodies nested too deep or repeating a key (common/json-body.ts)
  installJsonBodyParser(adapter.getInstance());
  recordHttpMetrics(adapter.getInstance());
  // every log line written while a request is handled names it (requestId)
  installRequestScope(adapter.getInstance());
  const options: NestApplicationOptions = { ...BOOT_LOGGING, bodyParser: false };
  const app = moduleRef
    ? moduleRef.createNestApplication<NestFastifyApplication>(adapter, options)
    : await NestFactory.create<NestFastifyApplication>(AppModule, adapter, options);
  const config = app.get(AppConfig);
  // The body limit is configuration, known only now that the app (and its config provider) exists, after
  // the adapter was built: every route gets it as it is registered (routes register at init, later).
  adapter.getInstance().addHook('onRoute', (route) => {
    route.bodyLimit ??= config.http.bodyLimitBytes;
  });
  app.useLogger(app.get(Logger));
  app.flushLogs();
  enableGracefulShutdown(app, config.http.shutdownDrainMs);
  enableBrowserSecurity(app, config.http.corsOrigins);
  app.useGlobalFilters(new ErrorEnvelopeFilter());
  app.useGlobalPipes(createValidationPipe());
  // every answer names its request, so a client report can be matched with our logs
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onSend', (req, reply, payload, done) => {
      void reply.header('x-request-id', req.id);
      done(null, payload);
    });

  // /v1/... from each controller's `version` (URI versioning: resolved into the route paths when they
  // are registered, nothing runs per request); /health and /metrics carry no version
  app.enableVersioning({ type: VersioningType.URI });
  await setUpOpenApi(app);
  setUpAsyncApi(app);
  return app;
}
