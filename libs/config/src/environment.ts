import { IsIn, IsOptional, IsString, Matches, MinLength } from 'class-validator';
import { BaseEnvironment } from './base-environment';
import { EnvBoolean, EnvInteger } from './env-value.decorators';

/**
 * What the seat API reads: the shared variables (base-environment.ts) and its own, with defaults and
 * bounds. AppConfig.load validates them once, when the app is created; a bad or missing value stops boot
 * naming the variable. Rules between variables: environment-checks.ts.
 */
export class SeatApiEnvironment extends BaseEnvironment {
  @EnvInteger(0, 65535)
  PORT: number = 3000;

  @EnvInteger(1024, 10 * 1024 * 1024)
  HTTP_BODY_LIMIT_BYTES: number = 64 * 1024;

  /**
   * Browser origins allowed to call the API (CORS), comma-separated, e.g.
   * `https://tickets.example,https://box-office.example:8443`. Unset: CORS is off, browsers only call
   * from the API's own origin (the seat picker page at /). No wildcard: list every origin.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^/,\s*]+(,https?:\/\/[^/,\s*]+)*$/, {
    message: 'CORS_ORIGINS must be origins like https://tickets.example[:port], comma-separated, no paths',
  })
  CORS_ORIGINS?: string;

  /**
   * On SIGTERM, how long readiness (/health) answers 503 while the API keeps serving, before it closes:
   * time for a load balancer to notice and stop sending requests. Unset: 5000 when NODE_ENV=production,
   * else 0 (development restarts and tests do not wait).
   */
  @IsOptional()
  @EnvInteger(0, 600_000)
  SHUTDOWN_DRAIN_MS?: number;

  // --- Redis: exactly one of REDIS_URL (a single Redis) and REDIS_CLUSTER_NODES (a Redis Cluster); no
  // default, so a deployment meant for a cluster never quietly runs on a local single Redis
  // (environment-checks.ts).
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
   * Commands issued in the same event-loop turn (by concurrent requests) go out in one socket write: under
   * load, a write syscall per command would cost the service more CPU than Redis's work.
   */
  @EnvBoolean()
  REDIS_AUTO_PIPELINING: boolean = true;

  /**
   * Replicas that must confirm a hold, extend, release or confirm (Redis WAIT) before it is answered: with
   * asynchronous replication a master that dies takes its last writes with it, so a 201 could name a hold
   * the promoted replica never saw. 0 (default): answer once the master has it (a single Redis has no
   * replica to wait for). 1 on a Cluster with one replica per master: no acknowledged change is lost when
   * one master dies. More than the replicas a master has refuses every change (503 REPLICAS_UNAVAILABLE).
   */
  @EnvInteger(0, 16)
  REDIS_WAIT_REPLICAS: number = 0;

  /**
   * How long a write waits for REDIS_WAIT_REPLICAS replicas before it is answered 503 REPLICAS_UNAVAILABLE.
   * A healthy replica confirms within a network round trip (the master asks for the confirmation as soon as
   * a client waits), so 500 ms only runs out when a replica is down or far behind. WAIT blocks the
   * connection it runs on (commands queued behind it wait too), so it must stay below
   * REDIS_COMMAND_TIMEOUT_MS (checked when REDIS_WAIT_REPLICAS > 0): half the default leaves them room.
   */
  @EnvInteger(1, 60000)
  REDIS_WAIT_TIMEOUT_MS: number = 500;

  // --- Auth
  @IsString()
  @MinLength(16, { message: 'AUTH_JWT_SECRET must be at least 16 characters' })
  AUTH_JWT_SECRET!: string;

  @IsOptional()
  @IsString()
  AUTH_JWT_ISSUER?: string;

  /**
   * How far ahead a token's `exp` may lie (a token without `exp` is refused). A leaked token is then
   * good for this long at most, never forever; the identity provider's own token lifetime must fit
   * (the demo token printed at boot is good for 12 h).
   */
  @EnvInteger(60, 30 * 86400)
  AUTH_MAX_TOKEN_LIFETIME_SECONDS: number = 86400;

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

  /**
   * The orphan-seat rule of an event created without one (its `settings.orphanRule`): 'no-single-gaps'
   * refuses a hold by seat ids that would leave one free seat alone in its row; 'none' does not.
   */
  @IsIn(['none', 'no-single-gaps'])
  EVENT_ORPHAN_RULE: 'none' | 'no-single-gaps' = 'no-single-gaps';

  /** How long a finished hold stays readable (GET /v1/holds/:id) after it ended. */
  @EnvInteger(60, 30 * 86400)
  HOLD_RETENTION_SECONDS: number = 86400;

  @EnvInteger(1000, 600000)
  CONFIRM_TIMEOUT_MS: number = 30000;

  /**
   * Shards of the hold store (see apps/seat-api/src/hold-store/hold-keys.ts): an event lives in shard
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
   * first). The default keeps a few 100,000-seat events with their seat-list templates and rendered maps
   * (bench:seat-map reports what one takes; an open stream adds its own template and first event), or
   * thousands of small halls.
   */
  @EnvInteger(64 * 1024, 8 * 1024 * 1024 * 1024)
  SEAT_MAP_CACHE_MAX_BYTES: number = 256 * 1024 * 1024;

  /** Seat-map event streams one instance keeps open; past it a new one is refused with 503 and Retry-After. */
  @EnvInteger(1, 1_000_000)
  SEAT_MAP_MAX_STREAMS: number = 10_000;

  /** Interval of the `: ping` comment on an idle stream (keeps proxies from closing it). */
  @EnvInteger(100, 300_000)
  SEAT_MAP_HEARTBEAT_MS: number = 15_000;

  /**
   * Seat-map streams one caller (the user of a valid token, else the client address) keeps open on one
   * instance; past it a new one is refused with 429 STREAM_LIMIT_EXCEEDED and Retry-After. A page opens
   * one; a few tabs, or a few people behind one address, stay well under it.
   */
  @EnvInteger(1, 1_000_000)
  SEAT_MAP_MAX_STREAMS_PER_CALLER: number = 20;

  /**
   * A stream whose client has taken nothing of what was written to it for this long is dropped
   * (seat_map_dropped_streams_total{reason="not_draining"}); an EventSource reconnects and resumes from
   * its last event. A client that keeps reading keeps its stream, however slowly it reads, as long as
   * its progress shows within this time: the server sees what the client's TCP acknowledges (on Linux;
   * elsewhere only what its own kernel takes, megabytes at a time), in steps of up to a few hundred KiB
   * and, once the client's receive window has closed, only when TCP probes it (up to 2 minutes apart).
   * The default leaves room for that: a client reading 8 KiB/s keeps its stream. A shorter timeout
   * drops slow readers with the stopped ones.
   */
  @EnvInteger(100, 600_000)
  SEAT_MAP_STREAM_DRAIN_TIMEOUT_MS: number = 180_000;

  /**
   * Memory budget of the open streams (estimated bytes): each is charged 64 KiB (what it may have
   * written and not yet sent) plus one byte per seat of its event (the statuses of the snapshot it is
   * sending). Past it a new stream is refused with 503 TOO_MANY_STREAMS: 1 GiB holds about 6,400
   * streams of a 100,000-seat event, or SEAT_MAP_MAX_STREAMS of small ones.
   */
  @EnvInteger(64 * 1024, 64 * 1024 * 1024 * 1024)
  SEAT_MAP_STREAM_MEMORY_MAX_BYTES: number = 1024 * 1024 * 1024;

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

  /**
   * An outbox record waiting longer than this is not draining: /health reports the outbox degraded. (A dead
   * relay's records are taken over with its shard lease, HOLD_SHARD_LEASE_MS, not after this.)
   */
  @EnvInteger(1000, 3600000)
  OUTBOX_STALE_AFTER_MS: number = 30000;

  @EnvBoolean()
  SWEEPER_ENABLED: boolean = true;

  /**
   * Every hold script also records its change for the seat.status topic (KAFKA_TOPIC_SEAT_STATUS), and the
   * relay copies SeatExpired there. Off, the outbox and seat.expired are as before seat.status existed,
   * and seat.status gets only BookingCancelled (its one topic). For comparing the stream's cost
   * (npm run bench:status-stream).
   */
  @EnvBoolean()
  SEAT_STATUS_STREAM_ENABLED: boolean = true;

  @EnvBoolean()
  SEED_DEMO_EVENT: boolean = false;

  // --- On-sale queues (queue/)
  /**
   * How often each instance steps every event's queue (admits at the pace, ends passes that ran out, and
   * refreshes the figures GET /v1/events/{id}/queue and its stream answer from memory).
   */
  @EnvInteger(50, 5000)
  QUEUE_STEP_MS: number = 250;

  /**
   * The ES256 key admission passes are signed with: a PKCS#8 PEM of a P-256 private key (line breaks as
   * `\n`). Every instance must have the same one. Left out, it is derived from AUTH_JWT_SECRET, which every
   * instance shares already. /.well-known/jwks.json serves its public part.
   */
  @IsOptional()
  @IsString()
  QUEUE_PASS_PRIVATE_KEY?: string;

  /** Live queue-status streams (GET /v1/events/{id}/queue/stream) one instance keeps open at most. */
  @EnvInteger(1, 1_000_000)
  QUEUE_MAX_STREAMS: number = 10_000;

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
