import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { asyncApiDocument } from '@app/contracts';

/** Where the AsyncAPI document is served: beside the OpenAPI page (/docs) and document (/docs-json). */
export const ASYNCAPI_PATH = '/docs/asyncapi';

/**
 * The AsyncAPI 3 document of the Kafka topics (seat.status, seat.expired) at /docs/asyncapi, as JSON: the
 * document docs/asyncapi.yaml holds, built from libs/contracts. Read-only and public, like /docs: a Fastify
 * route of its own, outside Nest's guards. Built once: it depends on the code only.
 */
export function setUpAsyncApi(app: NestFastifyApplication): void {
  const body = JSON.stringify(asyncApiDocument());
  app
    .getHttpAdapter()
    .getInstance()
    .get(ASYNCAPI_PATH, (_req, reply) => {
      void reply.type('application/json; charset=utf-8').send(body);
    });
}
