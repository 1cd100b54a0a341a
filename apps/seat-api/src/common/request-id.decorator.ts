import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The id of the request being served (Fastify's `req.id`: the client's sane x-request-id or a new UUID),
 * for a handler that returns or stores it. Log lines need not pass it: every line written while a request
 * is handled carries it (installRequestScope, libs/observability/src/logging.ts).
 */
export const RequestId = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<FastifyRequest>().id,
);
