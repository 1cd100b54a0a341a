import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The id of the request being served (Fastify's `req.id`: the client's sane x-request-id or a new UUID).
 * Controllers put it on the lines that say what a request did: the id is passed, not looked up from an
 * AsyncLocalStorage, whose promise hooks cost the whole process about 30 % of its CPU per hold on Node 20
 * (libs/observability/src/logging.ts).
 */
export const RequestId = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<FastifyRequest>().id,
);
