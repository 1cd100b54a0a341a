import { IsOptional, IsString, Matches, MinLength } from 'class-validator';
import { BaseEnvironment } from './base-environment';
import { EnvInteger } from './env-value.decorators';

/**
 * What apps/waitlist reads: the shared variables (PostgreSQL, Kafka, logging), the seat API it holds offered
 * seats through, the secret it signs the offer's user token with, and its own. No Redis: the seats are the
 * seat API's.
 */
export class WaitlistEnvironment extends BaseEnvironment {
  /** HTTP port of the waitlist app (health and metrics only); several instances on one host need one each. */
  @EnvInteger(0, 65535)
  WAITLIST_PORT: number = 3002;

  /** Every instance joins this group and they share seat.status's partitions (each show is on one). */
  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  WAITLIST_CONSUMER_GROUP: string = 'waitlist-offers';

  /**
   * How long the group waits for a silent instance before its partitions go to the others (kafkajs's
   * default, 30 s): the longest a crash delays the offers of the shows it was reading.
   */
  @EnvInteger(6000, 300000)
  WAITLIST_SESSION_TIMEOUT_MS: number = 30000;

  /**
   * Each partition handled at once holds a connection for its offer transaction and briefly takes a
   * second to write an ask (apps/waitlist's SeatStatusConsumer): one connection cannot do both.
   */
  @EnvInteger(2, 200)
  override DATABASE_POOL_SIZE: number = 10;

  /** How long an offer holds its seats for the user: the offer hold's ttl. */
  @EnvInteger(1, 86400)
  WAITLIST_OFFER_TTL_SECONDS: number = 300;

  /** The seat API the offer holds are made through (its POST /v1/events/{eventId}/holds). */
  @Matches(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, { message: 'WAITLIST_SEAT_API_URL must be an http(s) URL' })
  WAITLIST_SEAT_API_URL: string = 'http://127.0.0.1:3000';

  /** The seat API's token secret: the offer hold is the user's, made with a short token in their name. */
  @IsString()
  @MinLength(16, { message: 'AUTH_JWT_SECRET must be at least 16 characters' })
  AUTH_JWT_SECRET!: string;

  @IsOptional()
  @IsString()
  AUTH_JWT_ISSUER?: string;
}
