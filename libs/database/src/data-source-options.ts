import { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { BoundedClient } from './bounded-client';
import { ALL_ENTITIES } from './entities';
import { ALL_MIGRATIONS } from './migrations';

/**
 * How long PostgreSQL may keep a caller waiting, on the client's side and on the server's. The
 * client-side ones are what bound a call when the server cannot answer at all (partition, frozen host).
 */
export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one in the pool (pg connectionTimeoutMillis). */
  connectMs: number;
  /** The server cancels a statement past this (statement_timeout). */
  statementMs: number;
  /** The client fails a statement with no answer past this and drops its connection (pg query_timeout). */
  queryMs: number;
  /** The server ends a session idle inside a transaction this long (idle_in_transaction_session_timeout). */
  idleInTransactionMs: number;
  /** TCP keepalive probes on a connection idle this long. */
  keepAliveDelayMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  connectMs: 3000,
  statementMs: 10000,
  queryMs: 12000,
  idleInTransactionMs: 15000,
  keepAliveDelayMs: 10000,
};

export interface DatabaseSettings {
  url: string;
  schema: string;
  poolSize: number;
  /** Defaults: DEFAULT_DATABASE_TIMEOUTS. */
  timeouts?: Partial<DatabaseTimeouts>;
}

/** Tables live in their own schema (search_path), so test runs and deployments can share one database. */
export function dataSourceOptions(settings: DatabaseSettings): PostgresConnectionOptions {
  const t = { ...DEFAULT_DATABASE_TIMEOUTS, ...settings.timeouts };
  return {
    type: 'postgres',
    url: settings.url,
    schema: settings.schema,
    entities: ALL_ENTITIES,
    migrations: ALL_MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsRun: false,
    synchronize: false,
    poolSize: settings.poolSize,
    // pg Pool and Client options (TypeORM hands `extra` to the pool as it is)
    extra: {
      Client: BoundedClient,
      options: `-c search_path=${settings.schema}`,
      connectionTimeoutMillis: t.connectMs,
      query_timeout: t.queryMs,
      statement_timeout: t.statementMs,
      idle_in_transaction_session_timeout: t.idleInTransactionMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: t.keepAliveDelayMs,
    },
  };
}
