import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MinLength } from 'class-validator';
import { EnvBoolean, EnvInteger } from './env-value.decorators';

/**
 * Every environment variable the service reads, with its default and its bounds.
 * `loadConfig` validates this once at boot: a bad or missing value stops the process with its name.
 */
export class Environment {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @EnvInteger(0, 65535)
  PORT: number = 3000;

  @IsString()
  @IsNotEmpty()
  HOST: string = '127.0.0.1';

  /** HTTP port of apps/expiry-consumer (health and metrics only); several instances on one host need one each. */
  @EnvInteger(0, 65535)
  EXPIRY_CONSUMER_PORT: number = 3001;

  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  @EnvInteger(1024, 10 * 1024 * 1024)
  HTTP_BODY_LIMIT_BYTES: number = 64 * 1024;

  // --- PostgreSQL
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/test';

  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lower-case SQL identifier' })
  DATABASE_SCHEMA: string = 'seat_hold';

  @EnvInteger(1, 200)
  DATABASE_POOL_SIZE: number = 10;

  // --- Redis: exactly one of REDIS_URL (a single Redis) and REDIS_CLUSTER_NODES (a Redis Cluster); no
  // default, so a deployment meant for a cluster never quietly runs on a local single Redis (load-config.ts).
  @IsOptional()
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL?: string;

  /** Seed nodes of a Redis Cluster (any reachable ones; the client discovers the rest). */
  @IsOptional()
  @Matches(/^[^,:\s]+:\d{1,5}(,[^,:\s]+:\d{1,5})*$/, {
    message: 'REDIS_CLUSTER_NODES must be host:port[,host:port...]',
  })
  REDIS_CLUSTER_NODES?: string;

  /** Every key this service writes starts with it; test runs use their own prefix. */
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, { message: 'REDIS_KEY_PREFIX must be 1-64 chars of [A-Za-z0-9:_.-]' })
  REDIS_KEY_PREFIX: string = 'sh:';

  @EnvInteger(50, 60000)
  REDIS_CONNECT_TIMEOUT_MS: number = 1000;

  @EnvInteger(50, 60000)
  REDIS_COMMAND_TIMEOUT_MS: number = 1000;

  /**
   * Commands issued in the same event-loop turn (by concurrent requests) go out in one socket write:
   * under load the write syscalls, not Redis, were the service's largest CPU cost (bench:http).
   */
  @EnvBoolean()
  REDIS_AUTO_PIPELINING: boolean = true;

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

  @EnvInteger(1, 1000)
  KAFKA_TOPIC_PARTITIONS: number = 6;

  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  KAFKA_CONSUMER_GROUP: string = 'seat-expiry-history';

  @EnvInteger(100, 60000)
  KAFKA_REQUEST_TIMEOUT_MS: number = 3000;

  // --- Auth
  @IsString()
  @MinLength(16, { message: 'AUTH_JWT_SECRET must be at least 16 characters' })
  AUTH_JWT_SECRET!: string;

  @IsOptional()
  @IsString()
  AUTH_JWT_ISSUER?: string;

  // --- Holds
  @EnvInteger(1, 86400)
  HOLD_DEFAULT_TTL_SECONDS: number = 300;

  @EnvInteger(1, 86400)
  HOLD_MIN_TTL_SECONDS: number = 30;

  @EnvInteger(1, 86400)
  HOLD_MAX_TTL_SECONDS: number = 900;

  @EnvInteger(1, 1000)
  HOLD_MAX_SEATS_PER_HOLD: number = 10;

  @EnvInteger(1, 10000)
  HOLD_MAX_SEATS_PER_USER: number = 10;

  @EnvInteger(1, 7 * 86400)
  HOLD_MAX_LIFETIME_SECONDS: number = 1800;

  @EnvInteger(0, 100)
  HOLD_MAX_EXTENSIONS: number = 3;

  /** How long a finished hold stays readable (GET /v1/holds/:id) after it ended. */
  @EnvInteger(60, 30 * 86400)
  HOLD_RETENTION_SECONDS: number = 86400;

  @EnvInteger(1000, 600000)
  CONFIRM_TIMEOUT_MS: number = 30000;

  /**
   * Shards of the hold store (see apps/seat-api/src/holds/store/hold-keys.ts): an event lives in shard
   * fnv1a(eventId) mod HOLD_SHARDS. 64 is far above the masters anyone runs (a Cluster spreads the shards
   * over them) and keeps the per-tick work over all shards small. Changing it moves every event to
   * another shard: drain (no live hold) or migrate the keys first.
   */
  @EnvInteger(1, 4096)
  HOLD_SHARDS: number = 64;

  /**
   * Lease of an instance on a shard (watchdog-renewed every third of it): a shard whose owner died is
   * swept and relayed by another instance within about this long.
   */
  @EnvInteger(500, 600000)
  HOLD_SHARD_LEASE_MS: number = 10000;

  /**
   * How long after its start an event's Redis keys stay (seats, holds, seat-map log): 2 days cover the
   * longest show plus HOLD_RETENTION_SECONDS of readable ended holds. After it, once no hold is live,
   * the shard's background work deletes them (PostgreSQL keeps events and bookings).
   */
  @EnvInteger(60, 365 * 86400)
  HOLD_EVENT_RETENTION_SECONDS: number = 2 * 86400;

  // --- Catalogue
  /**
   * Budget of the in-memory seat cache (estimated bytes; least recently used events are dropped first).
   * A 100,000-seat event takes about 20 MB: the default keeps six of those, or thousands of small halls.
   */
  @EnvInteger(64 * 1024, 8 * 1024 * 1024 * 1024)
  CATALOGUE_CACHE_MAX_BYTES: number = 128 * 1024 * 1024;

  // --- Seat map (GET /v1/events/{id}/seats and its event stream)
  /**
   * Budget of the in-memory seat-map snapshots (estimated bytes; least recently used events are dropped
   * first). A 100,000-seat event takes about 30 MB with its rendered map.
   */
  @EnvInteger(64 * 1024, 8 * 1024 * 1024 * 1024)
  SEAT_MAP_CACHE_MAX_BYTES: number = 256 * 1024 * 1024;

  /** Seat-map event streams one instance keeps open; past it a new one is refused with 503 and Retry-After. */
  @EnvInteger(1, 1_000_000)
  SEAT_MAP_MAX_STREAMS: number = 10_000;

  /** Interval of the `: ping` comment on an idle stream (keeps proxies from closing it). */
  @EnvInteger(100, 300_000)
  SEAT_MAP_HEARTBEAT_MS: number = 15_000;

  // --- Seat locks
  @EnvInteger(100, 60000)
  SEAT_LOCK_LEASE_MS: number = 5000;

  @EnvInteger(0, 60000)
  SEAT_LOCK_WAIT_MS: number = 300;

  // --- Expiry pipeline
  @EnvInteger(50, 3600000)
  SWEEP_INTERVAL_MS: number = 1000;

  @EnvInteger(1, 100000)
  SWEEP_BATCH_SIZE: number = 500;

  @EnvInteger(10, 60000)
  OUTBOX_RELAY_INTERVAL_MS: number = 200;

  @EnvInteger(1, 10000)
  OUTBOX_RELAY_BATCH_SIZE: number = 1000;

  /** A relay record left unacknowledged this long by a dead relay is claimed by another instance. */
  @EnvInteger(1000, 3600000)
  OUTBOX_CLAIM_IDLE_MS: number = 15000;

  @EnvBoolean()
  SWEEPER_ENABLED: boolean = true;

  @EnvBoolean()
  SEED_DEMO_EVENT: boolean = false;

  // --- Rate limits, per caller (the user of a token, else the client address), shared through Redis
  @EnvBoolean()
  RATE_LIMIT_ENABLED: boolean = true;

  /** Fixed windows: a caller over a limit is refused (429, Retry-After) until its window ends. */
  @EnvInteger(1, 86400)
  RATE_LIMIT_WINDOW_SECONDS: number = 60;

  /** Hold requests per caller per window (a person at a seat picker makes a handful a minute). */
  @EnvInteger(1, 1_000_000)
  RATE_LIMIT_HOLDS_PER_WINDOW: number = 60;

  /** Seat-map reads per caller per window (600 a minute allows polling every 100 ms). */
  @EnvInteger(1, 1_000_000)
  RATE_LIMIT_SEAT_MAP_READS_PER_WINDOW: number = 600;

  /** Seat-map streams opened per caller per window (a page opens one, and again after a dropped connection). */
  @EnvInteger(1, 1_000_000)
  RATE_LIMIT_STREAM_OPENS_PER_WINDOW: number = 120;
}
