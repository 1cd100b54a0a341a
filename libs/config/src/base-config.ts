import { BaseEnvironment } from './base-environment';
import { validateEnvironment } from './validate-environment';

/**
 * The typed, grouped view of the variables every app reads. Each app's config class (AppConfig for the
 * seat API, ExpiryConsumerConfig) extends it with its own groups, is the DI token the app injects
 * (ConfigModule.forRoot(ConfigClass)), and has a static `load(source)` that validates its environment.
 */
export class BaseConfig<E extends BaseEnvironment = BaseEnvironment> {
  constructor(readonly env: E) {}

  /** Only the shared variables: for tools that need PostgreSQL or Kafka but are no app (the migration CLI). */
  static load(source: NodeJS.ProcessEnv = process.env): BaseConfig {
    return new BaseConfig(validateEnvironment(BaseEnvironment, source));
  }

  get log() {
    return { level: this.env.LOG_LEVEL, format: this.env.LOG_FORMAT };
  }

  get database() {
    const e = this.env;
    return {
      url: e.DATABASE_URL,
      schema: e.DATABASE_SCHEMA,
      poolSize: e.DATABASE_POOL_SIZE,
      timeouts: {
        connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
        statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
        queryMs: e.DATABASE_QUERY_TIMEOUT_MS,
        idleInTransactionMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
        keepAliveDelayMs: e.DATABASE_KEEPALIVE_DELAY_MS,
      },
    };
  }

  get kafka() {
    const e = this.env;
    return {
      brokers: e.KAFKA_BROKERS.split(','),
      clientId: e.KAFKA_CLIENT_ID,
      seatExpiredTopic: e.KAFKA_TOPIC_SEAT_EXPIRED,
      deadLetterTopic: e.KAFKA_TOPIC_DEAD_LETTER,
      seatStatusTopic: e.KAFKA_TOPIC_SEAT_STATUS,
      partitions: e.KAFKA_TOPIC_PARTITIONS,
      requestTimeoutMs: e.KAFKA_REQUEST_TIMEOUT_MS,
    };
  }
}
