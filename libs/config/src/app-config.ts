import { Environment } from './environment';

/** The typed, grouped view of `Environment` that the rest of the code injects. */
export class AppConfig {
  constructor(readonly env: Environment) {}

  get http() {
    const e = this.env;
    return {
      port: e.PORT,
      host: e.HOST,
      bodyLimitBytes: e.HTTP_BODY_LIMIT_BYTES,
      consumerPort: e.EXPIRY_CONSUMER_PORT,
    };
  }

  get log() {
    return { level: this.env.LOG_LEVEL, format: this.env.LOG_FORMAT };
  }

  get database() {
    const e = this.env;
    return { url: e.DATABASE_URL, schema: e.DATABASE_SCHEMA, poolSize: e.DATABASE_POOL_SIZE };
  }

  /** `url` for a single Redis, or `clusterNodes` (seeds) for a Redis Cluster: loadConfig ensures exactly one. */
  get redis() {
    const e = this.env;
    return {
      url: e.REDIS_URL,
      clusterNodes: e.REDIS_CLUSTER_NODES?.split(',').map((node) => {
        const at = node.lastIndexOf(':');
        return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
      }),
      keyPrefix: e.REDIS_KEY_PREFIX,
      connectTimeoutMs: e.REDIS_CONNECT_TIMEOUT_MS,
      commandTimeoutMs: e.REDIS_COMMAND_TIMEOUT_MS,
      autoPipelining: e.REDIS_AUTO_PIPELINING,
    };
  }

  get kafka() {
    const e = this.env;
    return {
      brokers: e.KAFKA_BROKERS.split(','),
      clientId: e.KAFKA_CLIENT_ID,
      seatExpiredTopic: e.KAFKA_TOPIC_SEAT_EXPIRED,
      deadLetterTopic: e.KAFKA_TOPIC_DEAD_LETTER,
      partitions: e.KAFKA_TOPIC_PARTITIONS,
      consumerGroup: e.KAFKA_CONSUMER_GROUP,
      requestTimeoutMs: e.KAFKA_REQUEST_TIMEOUT_MS,
    };
  }

  get auth() {
    return { jwtSecret: this.env.AUTH_JWT_SECRET, issuer: this.env.AUTH_JWT_ISSUER };
  }

  get holds() {
    const e = this.env;
    return {
      defaultTtlSeconds: e.HOLD_DEFAULT_TTL_SECONDS,
      minTtlSeconds: e.HOLD_MIN_TTL_SECONDS,
      maxTtlSeconds: e.HOLD_MAX_TTL_SECONDS,
      maxSeatsPerHold: e.HOLD_MAX_SEATS_PER_HOLD,
      maxSeatsPerUser: e.HOLD_MAX_SEATS_PER_USER,
      maxLifetimeSeconds: e.HOLD_MAX_LIFETIME_SECONDS,
      maxExtensions: e.HOLD_MAX_EXTENSIONS,
      retentionSeconds: e.HOLD_RETENTION_SECONDS,
      confirmTimeoutMs: e.CONFIRM_TIMEOUT_MS,
      seatLockLeaseMs: e.SEAT_LOCK_LEASE_MS,
      seatLockWaitMs: e.SEAT_LOCK_WAIT_MS,
      shards: e.HOLD_SHARDS,
      shardLeaseMs: e.HOLD_SHARD_LEASE_MS,
      eventRetentionSeconds: e.HOLD_EVENT_RETENTION_SECONDS,
    };
  }

  get catalogue() {
    return { cacheMaxBytes: this.env.CATALOGUE_CACHE_MAX_BYTES };
  }

  get seatMap() {
    const e = this.env;
    return {
      cacheMaxBytes: e.SEAT_MAP_CACHE_MAX_BYTES,
      maxStreams: e.SEAT_MAP_MAX_STREAMS,
      heartbeatMs: e.SEAT_MAP_HEARTBEAT_MS,
    };
  }

  get expiry() {
    const e = this.env;
    return {
      sweepIntervalMs: e.SWEEP_INTERVAL_MS,
      sweepBatchSize: e.SWEEP_BATCH_SIZE,
      sweeperEnabled: e.SWEEPER_ENABLED,
      relayIntervalMs: e.OUTBOX_RELAY_INTERVAL_MS,
      relayBatchSize: e.OUTBOX_RELAY_BATCH_SIZE,
      claimIdleMs: e.OUTBOX_CLAIM_IDLE_MS,
    };
  }

  get rateLimit() {
    const e = this.env;
    return {
      enabled: e.RATE_LIMIT_ENABLED,
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      holdsPerWindow: e.RATE_LIMIT_HOLDS_PER_WINDOW,
      seatMapReadsPerWindow: e.RATE_LIMIT_SEAT_MAP_READS_PER_WINDOW,
      streamOpensPerWindow: e.RATE_LIMIT_STREAM_OPENS_PER_WINDOW,
    };
  }

  get seedDemoEvent(): boolean {
    return this.env.SEED_DEMO_EVENT;
  }
}
