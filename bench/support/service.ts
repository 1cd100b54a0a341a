/**
 * The seat API as a benchmark target: a child process running apps/seat-api exactly as `npm start`
 * does, on a private Redis, a throw-away PostgreSQL schema and bench-only Kafka topics.
 */
import { SignJWT } from 'jose';
import * as path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../../test/support/private-redis';
import { Child, repoRoot, SERVER_NODE_ARGS, spawnTs, waitUntilUp } from './child';

export const BENCH_SECRET = 'bench-secret-0123456789abcdef';
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchService {
  base: string;
  child: Child;
  schema: string;
  topic: string;
  /** a token for `user-<n>` (roles: none) */
  token(user: number): Promise<string>;
  /** creates an event of `seats` seats (section S, rows R1.. of 100, the last one the rest): seat ids `S-R<row>-<n>` */
  createEvent(seats: number): Promise<string>;
  stop(): Promise<void>;
}

/** Seat ids as the catalogue names them for `createEvent`: `S-R<row>-<n>`, 100 seats a row. */
export const seatId = (i: number) => `S-R${Math.floor(i / 100) + 1}-${(i % 100) + 1}`;

/** A bearer token for `sub` with `roles`, signed with BENCH_SECRET (what the bench services accept). */
export const signBenchToken = (sub: string, roles: string[]) =>
  new SignJWT({ roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(BENCH_SECRET));

/**
 * `shared.schema` lets several instances share one schema and topic (the fault drill); the instance
 * that did not create the schema leaves it in place when it stops. `nodeArgs`: V8 flags other than
 * production's (bench:node-flags compares them). `root`: another checkout's seat API (bench:builds).
 */
export async function startService(
  name: string,
  redisUrl: string,
  env: Record<string, string> = {},
  shared?: { schema: string },
  nodeArgs: readonly string[] = SERVER_NODE_ARGS,
  root = repoRoot,
): Promise<BenchService> {
  // env.PORT: a caller that polls the service itself while it starts (bench:boot) picks the port
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const schema = shared?.schema ?? `bench_${name}_${Date.now().toString(36)}`;
  const topic = `${schema}.seat-expired`;
  const child = spawnTs(
    'apps/seat-api/src/main.ts',
    {
      PORT: String(port),
      AUTH_JWT_SECRET: BENCH_SECRET,
      DATABASE_URL,
      DATABASE_SCHEMA: schema,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: 'svc:',
      KAFKA_TOPIC_SEAT_EXPIRED: topic,
      KAFKA_TOPIC_DEAD_LETTER: `${schema}.dlq`,
      KAFKA_TOPIC_SEAT_STATUS: `${schema}.seat-status`,
      SEED_DEMO_EVENT: 'false',
      LOG_LEVEL: 'warn', // one info line per hold would measure the log pipe, not the service
      LOG_FORMAT: 'json',
      // the per-user limiter runs (its cost is in every figure) but never refuses: a few thousand bench
      // users make far more holds a minute than a person would
      RATE_LIMIT_HOLDS_PER_WINDOW: '1000000',
      RATE_LIMIT_SEAT_MAP_READS_PER_WINDOW: '1000000',
      ...env,
    },
    path.resolve(__dirname, '..', 'results', `${name}-service.log.tmp`),
    nodeArgs,
    root,
  );
  const base = `http://127.0.0.1:${port}`;
  await waitUntilUp(`${base}/health/live`, child, 120_000);
  const admin = await signBenchToken('bench-admin', ['admin']);
  return {
    base,
    child,
    schema,
    topic,
    token: (user) => signBenchToken(`user-${user}`, []),
    createEvent: async (seats) => {
      const res = await fetch(`${base}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
        body: JSON.stringify({
          name: 'Bench show',
          // the loads hold seats at random: no orphan-seat rule (a new event's default is no-single-gaps)
          settings: { orphanRule: 'none' },
          startsAt: '2030-01-01T20:00:00Z',
          sections: [
            {
              name: 'S',
              category: 'standard',
              rows: Array.from({ length: Math.ceil(seats / 100) }, (_, r) => ({
                row: `R${r + 1}`,
                seats: Math.min(100, seats - r * 100),
              })),
            },
          ],
        }),
      });
      if (res.status !== 201) {
        throw new Error(`create event: ${res.status} ${await res.text()}`);
      }
      return ((await res.json()) as { eventId: string }).eventId;
    },
    stop: async () => {
      await child.stop();
      if (shared) {
        return;
      }
      const pg = new Client({ connectionString: DATABASE_URL });
      await pg.connect();
      await pg.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pg.end();
    },
  };
}
