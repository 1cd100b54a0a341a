import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? ['1', 'true', 'yes', 'on'].includes(value.toLowerCase()) : value;

/**
 * Every environment variable the service reads, with its default and its bounds.
 * `loadConfig` validates this once at boot: a bad or missing value stops the process with its name.
 */
export class Environment {
  @IsIn(['development', 'production', 'test'])
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  @IsNotEmpty()
  HOST: string = '127.0.0.1';

  /** HTTP port of apps/expiry-consumer (health and metrics only); several instances on one host need one each. */
  @IsInt()
  @Min(0)
  @Max(65535)
  EXPIRY_CONSUMER_PORT: number = 3001;

  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  @IsInt()
  @Min(1024)
  @Max(10 * 1024 * 1024)
  HTTP_BODY_LIMIT_BYTES: number = 64 * 1024;

  // --- PostgreSQL
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/test';

  @Matches(/^[a-z_][a-z0-9_]{0,62}$/, { message: 'DATABASE_SCHEMA must be a lower-case SQL identifier' })
  DATABASE_SCHEMA: string = 'seat_hold';

  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE: number = 10;

  // --- Redis
  @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Every key this service writes starts with it; test runs use their own prefix. */
  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, { message: 'REDIS_KEY_PREFIX must be 1-64 chars of [A-Za-z0-9:_.-]' })
  REDIS_KEY_PREFIX: string = 'sh:';

  @IsInt()
  @Min(50)
  @Max(60000)
  REDIS_CONNECT_TIMEOUT_MS: number = 1000;

  @IsInt()
  @Min(50)
  @Max(60000)
  REDIS_COMMAND_TIMEOUT_MS: number = 1000;

  /**
   * Commands issued in the same event-loop turn (by concurrent requests) go out in one socket write:
   * under load the write syscalls, not Redis, were the service's largest CPU cost (bench:http).
   */
  @Transform(toBool)
  @IsBoolean()
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

  @IsInt()
  @Min(1)
  @Max(1000)
  KAFKA_TOPIC_PARTITIONS: number = 6;

  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  KAFKA_CONSUMER_GROUP: string = 'seat-expiry-history';

  @IsInt()
  @Min(100)
  @Max(60000)
  KAFKA_REQUEST_TIMEOUT_MS: number = 3000;

  // --- Auth
  @IsString()
  @MinLength(16, { message: 'AUTH_JWT_SECRET must be at least 16 characters' })
  AUTH_JWT_SECRET!: string;

  @IsOptional()
  @IsString()
  AUTH_JWT_ISSUER?: string;

  // --- Holds
  @IsInt()
  @Min(1)
  @Max(86400)
  HOLD_DEFAULT_TTL_SECONDS: number = 300;

  @IsInt()
  @Min(1)
  @Max(86400)
  HOLD_MIN_TTL_SECONDS: number = 30;

  @IsInt()
  @Min(1)
  @Max(86400)
  HOLD_MAX_TTL_SECONDS: number = 900;

  @IsInt()
  @Min(1)
  @Max(1000)
  HOLD_MAX_SEATS_PER_HOLD: number = 10;

  @IsInt()
  @Min(1)
  @Max(10000)
  HOLD_MAX_SEATS_PER_USER: number = 10;

  @IsInt()
  @Min(1)
  @Max(7 * 86400)
  HOLD_MAX_LIFETIME_SECONDS: number = 1800;

  @IsInt()
  @Min(0)
  @Max(100)
  HOLD_MAX_EXTENSIONS: number = 3;

  /** How long a finished hold stays readable (GET /v1/holds/:id) after it ended. */
  @IsInt()
  @Min(60)
  @Max(30 * 86400)
  HOLD_RETENTION_SECONDS: number = 86400;

  @IsInt()
  @Min(1000)
  @Max(600000)
  CONFIRM_TIMEOUT_MS: number = 30000;

  // --- Seat locks
  @IsInt()
  @Min(100)
  @Max(60000)
  SEAT_LOCK_LEASE_MS: number = 5000;

  @IsInt()
  @Min(0)
  @Max(60000)
  SEAT_LOCK_WAIT_MS: number = 300;

  // --- Expiry pipeline
  @IsInt()
  @Min(50)
  @Max(3600000)
  SWEEP_INTERVAL_MS: number = 1000;

  @IsInt()
  @Min(1)
  @Max(100000)
  SWEEP_BATCH_SIZE: number = 500;

  @IsInt()
  @Min(10)
  @Max(60000)
  OUTBOX_RELAY_INTERVAL_MS: number = 200;

  @IsInt()
  @Min(1)
  @Max(10000)
  OUTBOX_RELAY_BATCH_SIZE: number = 1000;

  /** A relay record left unacknowledged this long by a dead relay is claimed by another instance. */
  @IsInt()
  @Min(1000)
  @Max(3600000)
  OUTBOX_CLAIM_IDLE_MS: number = 15000;

  @Transform(toBool)
  @IsBoolean()
  SWEEPER_ENABLED: boolean = true;

  @Transform(toBool)
  @IsBoolean()
  SEED_DEMO_EVENT: boolean = false;
}
