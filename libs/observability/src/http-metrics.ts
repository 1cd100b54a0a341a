import type { FastifyInstance } from 'fastify';
import { histogram } from './metrics';

const httpDuration = histogram('http_request_duration_seconds', 'HTTP request duration by route and status', [
  'method',
  'route',
  'status',
]);

/**
 * Records every answer under its route pattern (not the raw URL, to bound label cardinality) with the
 * status actually sent, errors rendered by filters and router 404s included. A Fastify onResponse hook
 * rather than a Nest interceptor: it sees those answers too and keeps rxjs off the request path (the
 * interceptor was measurable in the bench:http profile). Call it before the app registers its routes.
 */
export function recordHttpMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
