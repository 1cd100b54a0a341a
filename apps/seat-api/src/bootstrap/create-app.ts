import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { loadConfig } from '@app/config';
import { Logger, PinoLogger } from 'nestjs-pino';
import { bindRequestLogContext, recordHttpMetrics, requestIdOf } from '@app/observability';
import { AppModule } from '../app.module';
import { ErrorEnvelopeFilter, sendErrorEnvelope } from '../common/error-envelope.filter';
import { installJsonBodyParser } from '../common/json-body';
import { createValidationPipe } from '../common/validation';

/**
 * Builds the HTTP application exactly as production runs it; e2e tests call this too, so they
 * exercise the same adapter, limits, filters and docs. The caller decides when to listen.
 */
export async function createSeatApi(): Promise<NestFastifyApplication> {
  const config = loadConfig();
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    // the client's x-request-id only when it is a sane token (it is echoed back and logged), else a UUID
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Nest logs requests that matter (errors); Fastify's per-request log would double the volume.
    logger: false,
    // what the router refuses before Nest runs (a path parameter over maxParamLength, a bad URL)
    // still gets the one envelope
    frameworkErrors: (error: Error, req: FastifyRequest, reply: FastifyReply) =>
      sendErrorEnvelope(error, req, reply),
  });
  // JSON only: Fastify's own JSON parser (honours bodyLimit); Nest's urlencoded parser and Fastify's
  // text/plain one are left out, so any other body is a 415 instead of a string fed to validation
  adapter.getInstance().removeContentTypeParser('text/plain');
  // the same JSON parser, then refuses bodies nested too deep or repeating a key (common/json-body.ts)
  installJsonBodyParser(adapter.getInstance());
  recordHttpMetrics(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, {
    bufferLogs: true, // boot lines wait for the pino logger below, so every line has one format
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  bindRequestLogContext(adapter.getInstance(), await app.resolve(PinoLogger));
  app.enableShutdownHooks();
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

  const docs = new DocumentBuilder()
    .setTitle('Seat-hold reservation service')
    .setDescription('Hold seats for a few minutes while people pay; confirm, extend, release; seat map.')
    .setVersion('1')
    .addBearerAuth()
    .build();
  SwaggerModule.setup('docs', app, () => SwaggerModule.createDocument(app, docs));
  return app;
}
