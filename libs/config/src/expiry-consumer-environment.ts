import { Matches } from 'class-validator';
import { BaseEnvironment } from './base-environment';
import { EnvInteger } from './env-value.decorators';

/**
 * What apps/expiry-consumer reads: the shared variables (PostgreSQL, Kafka, logging) and its own. It has
 * no Redis and checks no tokens, so it neither needs nor validates REDIS_* or AUTH_*.
 */
export class ExpiryConsumerEnvironment extends BaseEnvironment {
  /** HTTP port of the consumer (health and metrics only); several instances on one host need one each. */
  @EnvInteger(0, 65535)
  EXPIRY_CONSUMER_PORT: number = 3001;

  /** Every instance joins this group and they share the topic's partitions. */
  @Matches(/^[A-Za-z0-9._-]{1,200}$/)
  KAFKA_CONSUMER_GROUP: string = 'seat-expiry-history';
}
