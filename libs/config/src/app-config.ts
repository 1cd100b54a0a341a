import { BaseConfig } from './base-config';
import { SeatApiEnvironment } from './environment';
import { seatApiCrossChecks } from './environment-checks';
import { validateEnvironment } from './validate-environment';

/**
 * The seat API's configuration: the typed, grouped view of SeatApiEnvironment that its providers inject
 * (ConfigModule.forRoot(AppConfig)); tests replace it with overrideProvider(AppConfig).
 */
export class AppConfig extends BaseConfig<SeatApiEnvironment> {
  /** Validates the seat API's variables from `source` (default process.env). */
  static override load(source: NodeJS.ProcessEnv = process.env): AppConfig {
    return new AppConfig(validateEnvironment(SeatApiEnvironment, source, seatApiCrossChecks));
  }

  get http() {
    const e = this.env;
    return {
      port: e.PORT,
      host: e.HOST,
      bodyLimitBytes: e.HTTP_BODY_LIMIT_BYTES,
      /** Browser origins allowed by CORS; empty: CORS off. */
      corsOrigins: e.CORS_ORIGINS?.split(',') ?? [],
      shutdownDrainMs: e.SHUTDOWN_DRAIN_MS ?? (e.NODE_ENV === 'production' ? 5000 : 0),
    };
  }

  /** `url` for a single Redis, or `clusterNodes` (seeds) for a Redis Cluster: load() ensures exactly one. */
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

  /** Replicas a hold-store change waits for before it is answered (0: none), and for how long at most. */
  get replicaAck() {
    return { replicas: this.env.REDIS_WAIT_REPLICAS, timeoutMs: this.env.REDIS_WAIT_TIMEOUT_MS };
  }

  get auth() {
    const e = this.env;
    return {
      jwtSecret: e.AUTH_JWT_SECRET,
      issuer: e.AUTH_JWT_ISSUER,
      maxTokenLifetimeSeconds: e.AUTH_MAX_TOKEN_LIFETIME_SECONDS,
    };
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
      orphanRule: e.EVENT_ORPHAN_RULE,
    };
  }

  get catalogue() {
    return { cacheMaxBytes: this.env.CATALOGUE_CACHE_MAX_BYTES };
  }

  get queue() {
    const e = this.env;
    return {
      stepMs: e.QUEUE_STEP_MS,
      passPrivateKeyPem: e.QUEUE_PASS_PRIVATE_KEY?.replace(/\\n/g, '\n'),
      maxStreams: e.QUEUE_MAX_STREAMS,
      heartbeatMs: e.SEAT_MAP_HEARTBEAT_MS,
    };
  }

  get seatMap() {
    const e = this.env;
    return {
      cacheMaxBytes: e.SEAT_MAP_CACHE_MAX_BYTES,
      maxStreams: e.SEAT_MAP_MAX_STREAMS,
      heartbeatMs: e.SEAT_MAP_HEARTBEAT_MS,
      maxStreamsPerCaller: e.SEAT_MAP_MAX_STREAMS_PER_CALLER,
      drainTimeoutMs: e.SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS,
      streamMemoryMaxBytes: e.SEAT_MAP_STREAM_MEMORY_MAX_BYTES,
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
      staleAfterMs: e.OUTBOX_STALE_AFTER_MS,
      statusStreamEnabled: e.SEAT_STATUS_STREAM_ENABLED,
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
