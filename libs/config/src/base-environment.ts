import { IsIn, IsNotEmpty, IsString, Matches } from 'class-validator';
import { EnvInteger } from './env-value.decorators';

/**
 * The variables every app of this repository reads: where it runs, how it logs, PostgreSQL and Kafka.
 * Each app validates its own subclass (environment.ts for the seat API, expiry-consumer-environment.ts),
 * so an app never demands a variable it does not use. A variable an app does not declare is ignored.
 */
export class BaseEnvironment {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  /** The address the app's HTTP server listens on. */
  @IsString()
  @IsNotEmpty()
  HOST: string = '127.0.0.1';

  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  // --- PostgreSQL
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/test';

  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lower-case SQL identifier' })
  DATABASE_SCHEMA: string = 'seat_hold';

  @EnvInteger(1, 200)
  DATABASE_POOL_SIZE: number = 10;

  /*
   * Client-side deadlines: a PostgreSQL that stops answering (a partition, a frozen host: packets
   * dropped, nothing refused) must fail a call, never hang it, whatever the server's own timeouts.
   */
  /** Opening a connection, or waiting for a free one in the pool. */
  @EnvInteger(100, 60000)
  DATABASE_CONNECT_TIMEOUT_MS: number = 3000;

  /** The server stops a statement past this (statement_timeout); calls with a budget of their own use less. */
  @EnvInteger(100, 600000)
  DATABASE_STATEMENT_TIMEOUT_MS: number = 10000;

  /**
   * The client gives up on a statement with no answer past this (pg query_timeout) and drops its
   * connection: the backstop when the server cannot say anything, above DATABASE_STATEMENT_TIMEOUT_MS so
   * that a server that does answer reports its own timeout first.
   */
  @EnvInteger(100, 600000)
  DATABASE_QUERY_TIMEOUT_MS: number = 12000;

  /** The server ends a session left idle inside a transaction this long (its client went silent). */
  @EnvInteger(100, 600000)
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number = 15000;

  /** TCP keepalive on idle connections after this long, so a peer that vanished is noticed. */
  @EnvInteger(100, 600000)
  DATABASE_KEEPALIVE_DELAY_MS: number = 10000;

  // --- Kafka
  @Matches(/^[^,\s]+:\d+(,[^,\s]+:\d+)*$/, { message: 'KAFKA_BROKERS must be host:port[,host:port]' })
  KAFKA_BROKERS: string = '127.0.0.1:9092';

  @IsString()
  @IsNotEmpty()
  KAFKA_CLIENT_ID: string = 'seat-hold';

  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  KAFKA_TOPIC_SEAT_EXPIRED: string = 'seat.expired';

  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  KAFKA_TOPIC_DEAD_LETTER: string = 'seat.expired.dlq';

  /** Every change of a seat's state (libs/contracts seat-status: SEAT_STATUS_TOPIC, SEAT_STATUS_TOPIC_ENV). */
  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  KAFKA_TOPIC_SEAT_STATUS: string = 'seat.status';

  /** Partitions of the topics an app creates when they are missing (every app may create them). */
  @EnvInteger(1, 1000)
  KAFKA_TOPIC_PARTITIONS: number = 6;

  @EnvInteger(100, 60000)
  KAFKA_REQUEST_TIMEOUT_MS: number = 3000;
}
