/**
 * What the staff (admin) e2e tests stand on: the seat API, the test's own view of PostgreSQL, one show,
 * an admin's and an agent's token and the customers' tokens. For the tests of a staff action across two
 * stores, `silenceableStores` puts TCP proxies in front of the real PostgreSQL and Redis that go silent
 * the way a partitioned host does.
 */
import { Db, openDb } from './db';
import { Api, createEvent, startApi } from './seat-api';
import { startTcpProxy, TcpProxy } from './tcp-proxy';

export interface StaffStage {
  api: Api;
  db: Db;
  eventId: string;
  admin: string;
  agent: string;
  /** The tokens of `customers`, in their order. */
  customers: string[];
}

export async function startStaffStage(o: {
  env?: Record<string, string>;
  rows: number;
  perRow: number;
  customers: string[];
}): Promise<StaffStage> {
  // first: startApi puts `env` into process.env, whose DATABASE_URL openDb reads; the test's own view of
  // PostgreSQL must never go through a proxy the test silences
  const db = await openDb();
  const api = await startApi(o.env);
  const eventId = await createEvent(api, o.rows, o.perRow);
  return {
    api,
    db,
    eventId,
    admin: await api.token('admin-1', ['admin']),
    agent: await api.token('agent-1', ['agent']),
    customers: await Promise.all(o.customers.map((c) => api.token(c))),
  };
}

export interface SilenceableStores {
  pg: TcpProxy;
  redis: TcpProxy;
  /**
   * The API's environment through the proxies, with short Redis deadlines and seat-lock times, so an
   * action whose request failed is decided by a read a few seconds later.
   */
  env: Record<string, string>;
  /** Both proxies answer again (after each test, so a failed one leaves no store silent). */
  thaw(): void;
  close(): Promise<void>;
}

export async function silenceableStores(): Promise<SilenceableStores> {
  const realPg = new URL(process.env.DATABASE_URL!);
  const realRedis = new URL(process.env.REDIS_URL!);
  const pg = await startTcpProxy({ host: realPg.hostname, port: Number(realPg.port || 5432) });
  const redis = await startTcpProxy({ host: realRedis.hostname, port: Number(realRedis.port || 6379) });
  return {
    pg,
    redis,
    env: {
      DATABASE_URL: pg.urlFor(process.env.DATABASE_URL!),
      REDIS_URL: redis.urlFor(process.env.REDIS_URL!),
      REDIS_COMMAND_TIMEOUT_MS: '500',
      SEAT_LOCK_LEASE_MS: '1000',
      SEAT_LOCK_WAIT_MS: '500',
      RATE_LIMIT_ENABLED: 'false',
    },
    thaw() {
      pg.thaw();
      redis.thaw();
    },
    async close() {
      pg.thaw();
      redis.thaw();
      await pg.close();
      await redis.close();
    },
  };
}
