import type { FastifyInstance } from 'fastify';
import { boundObserve } from './bound-metrics';
import { histogram } from './metrics';

const httpDuration = histogram('http_request_duration_seconds', 'HTTP request duration by route and status', [
  'method',
  'route',
  'status',
]);

/** One observer per method, route and status: their number is bounded by the routes (see below). */
const observers = new Map<string, (seconds: number) => void>();

/**
 * Records every answer under its route pattern (not the raw URL, to bound label cardinality) with the
 * status actually sent, errors rendered by filters and router 404s included. A Fastify onResponse hook
 * rather than a Nest interceptor: it sees those answers too and keeps rxjs off the request path. Each
 * label set's observer is made once
 * (boundObserve: no label hashing per answer). Call it before the app registers its routes.
 */
export function recordHttpMetrics(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    const method = req.method;
    const route = req.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const key = `${method} ${status} ${route}`;
    let observe = observers.get(key);
    if (observe === undefined) {
      observe = boundObserve(httpDuration, { method, route, status: String(status) });
      observers.set(key, observe);
    }
    observe(reply.elapsedTime / 1000);
    done();
  });
}
