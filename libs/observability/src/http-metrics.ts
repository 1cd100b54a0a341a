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
 * rather than a Nest interceptor: it sees those answers too and keeps rxjs off the request path. This is
 * prom-client's plain use; fastify-metrics, the plugin for it, creates its histogram (and a summary beside
 * it) in the global registry per app, which a second app in one process (the tests build several) cannot
 * do, and times each request from a hook of its own. Call it before the app registers its routes.
 */
export function recordHttpMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    httpDuration.observe({ method: req.method, route, status: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
}
