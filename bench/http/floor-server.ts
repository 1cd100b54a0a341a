/**
 * The floor the HTTP benchmark measures the service against: a bare node:http server that runs the
 * very same hold Lua script (HoldStore.createHold, one FCALL) through ioredis. No Nest, no auth,
 * no validation beyond JSON parsing, no seat lock: what is left is the cost of HTTP + JSON + Redis.
 * Started as a child process by http.bench.ts (FLOOR_PORT, REDIS_URL, REDIS_KEY_PREFIX).
 */
import 'reflect-metadata';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import Redis from 'ioredis';
import { loadConfig } from '@app/config';
import { DistributedLockService } from '@app/distributed-lock';
import { HoldIds, HoldStore } from '../../apps/seat-api/src/hold-store';

const config = loadConfig({ AUTH_JWT_SECRET: 'floor-secret-0123456789', REDIS_URL: process.env.REDIS_URL });
// the service's own Redis switch (REDIS_AUTO_PIPELINING), so both sides write to Redis the same way
const redis = new Redis(process.env.REDIS_URL!, {
  keyPrefix: process.env.REDIS_KEY_PREFIX,
  enableAutoPipelining: config.redis.autoPipelining,
});
const store = new HoldStore(redis, config, new DistributedLockService({ redis }));
const route = /^\/v1\/events\/([0-9a-f-]{36})\/holds$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function hold(req: IncomingMessage, res: ServerResponse, eventId: string): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    chunks.push(chunk as Buffer);
  }
  const body = JSON.parse(Buffer.concat(chunks).toString()) as { seatIds: string[]; ttlSeconds?: number };
  const result = await store.createHold({
    eventId,
    holdId: HoldIds.generate(eventId),
    userId: String(req.headers['x-user'] ?? 'anonymous'),
    seatIds: body.seatIds,
    ttlMs: (body.ttlSeconds ?? config.holds.defaultTtlSeconds) * 1000,
    maxLifetimeMs: config.holds.maxLifetimeSeconds * 1000,
    maxSeatsPerUser: config.holds.maxSeatsPerUser,
    fencingToken: 0, // no seat lock here: 0 is never above the lock's counter
  });
  if (result.ok) {
    send(res, 201, {
      holdId: result.hold.holdId,
      seatIds: result.hold.seatIds,
      expiresAt: new Date(result.hold.expireAtMs).toISOString(),
    });
  } else if (result.error === 'SEATS_UNAVAILABLE') {
    send(res, 409, { code: result.error, errors: result.conflicts });
  } else {
    send(res, 422, { code: result.error });
  }
}

const server = createServer((req, res) => {
  const match = req.method === 'POST' ? route.exec(req.url ?? '') : null;
  if (!match) {
    send(res, req.url === '/health/live' ? 200 : 404, {});
    return;
  }
  hold(req, res, match[1]).catch((e: Error) => send(res, 500, { message: e.message }));
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.FLOOR_PORT), '127.0.0.1');
