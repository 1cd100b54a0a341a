import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Takes a reply over from Fastify and opens it as a Server-Sent Events stream: headers set so far (CORS,
 * the request id) kept, no proxy caching, transforming or buffering it (X-Accel-Buffering: nginx), each
 * event written out at once. What the stream writes goes straight to the returned response.
 */
export function openEventStream(req: FastifyRequest, reply: FastifyReply): ServerResponse {
  reply.hijack();
  reply.raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    'x-request-id': String(req.id),
  });
  req.raw.socket.setNoDelay(true);
  return reply.raw;
}
