/**
 * What the staff (admin) e2e tests stand on: the seat API, the test's own view of PostgreSQL, one show,
 * an admin's and an agent's token and the customers' tokens. For the tests of a staff action across two
 * stores, `startSilencedStaffStage` puts TCP proxies in front of the real PostgreSQL and Redis that go
 * silent the way a partitioned host does; for the tests of what staff actions publish,
 * `startStaffStageOnSeatStatus` reads seat.status as the API's outbox relay fills it.
 */
import { Db, openDb } from './db';
import { TopicProbe } from './kafka-probe';
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

/** The stage's show, `rows` rows of `perRow` seats, and the customers it makes a token for. */
export interface StaffStageShape {
  rows: number;
  perRow: number;
  customers: string[];
}

export async function startStaffStage(
  o: StaffStageShape & { env?: Record<string, string> },
): Promise<StaffStage> {
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

interface SilenceableStores {
  pg: TcpProxy;
  redis: TcpProxy;
  /**
   * The API's environment through the proxies, with short Redis deadlines and seat-lock times, so an
   * action whose request failed is decided by a read a few seconds later.
   */
  env: Record<string, string>;
  /** Both proxies answer again. */
  thaw(): void;
  close(): Promise<void>;
}

async function silenceableStores(): Promise<SilenceableStores> {
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

/** A staff stage and a probe reading seat.status from its beginning. */
export interface StaffStageOnSeatStatus extends StaffStage {
  topic: TopicProbe;
  /** Stops the probe, then closes the API and the test's PostgreSQL view. */
  close(): Promise<void>;
}

export async function startStaffStageOnSeatStatus(o: StaffStageShape): Promise<StaffStageOnSeatStatus> {
  const stage = await startStaffStage({
    ...o,
    // the outbox relay runs with the sweeper, and at 100 ms a message is on the topic soon after its change
    env: { SWEEPER_ENABLED: 'true', OUTBOX_RELAY_INTERVAL_MS: '100', RATE_LIMIT_ENABLED: 'false' },
  });
  let topic: TopicProbe;
  try {
    topic = await TopicProbe.start(process.env.KAFKA_TOPIC_SEAT_STATUS!);
  } catch (e) {
    await stage.api.close();
    await stage.db.close();
    throw e;
  }
  return {
    ...stage,
    topic,
    async close() {
      await topic.stop();
      await stage.api.close();
      await stage.db.close();
    },
  };
}

/** A staff stage whose API reaches PostgreSQL and Redis through silenceable stores. */
export interface SilencedStaffStage extends StaffStage {
  pg: TcpProxy;
  redis: TcpProxy;
  /**
   * PostgreSQL goes silent at the commit of the next audit entry's transaction (not at an earlier commit
   * of the same request, such as a policy read's): the commit is held back, and lands when thawed, after
   * the request gave up on its answer. Resolves once it is held.
   */
  freezeAtEntryCommit(): Promise<void>;
  /** Both proxies answer again: call it after each test, so a failed one leaves no store silent. */
  thaw(): void;
  /** Thaws the proxies first, so no close waits on a silent store, then closes all the stage started. */
  close(): Promise<void>;
}

export async function startSilencedStaffStage(o: StaffStageShape): Promise<SilencedStaffStage> {
  const stores = await silenceableStores();
  let stage: StaffStage;
  try {
    stage = await startStaffStage({ ...o, env: stores.env });
  } catch (e) {
    await stores.close();
    throw e;
  }
  return {
    ...stage,
    pg: stores.pg,
    redis: stores.redis,
    async freezeAtEntryCommit() {
      await stores.pg.freezeOn('INSERT INTO audit_entries');
      // at once, before the INSERT is even delivered: its transaction's next words are the commit
      stores.pg.thaw();
      await stores.pg.freezeOn('COMMIT');
    },
    thaw: () => stores.thaw(),
    async close() {
      stores.thaw();
      await stage.api.close();
      await stage.db.close();
      await stores.close();
    },
  };
}
