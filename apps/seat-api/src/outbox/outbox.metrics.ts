import { counter, gauge, histogram } from '@app/observability';

export const outboxDepth = gauge(
  'seat_outbox_depth',
  'Seat change records waiting in the outbox (all events)',
);
export const outboxOldestAge = gauge(
  'seat_outbox_oldest_age_seconds',
  'Age of the oldest unpublished outbox record',
);
export const published = counter('seat_expired_published_total', 'SeatExpired events acknowledged by Kafka');
export const publishFailures = counter(
  'seat_outbox_publish_failures_total',
  'Failed publish attempts (records stay)',
);
export const expiryLag = histogram(
  'seat_expiry_publish_lag_seconds',
  'From a hold’s expireAt until Kafka acknowledged its SeatExpired',
  [],
  [0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60, 300],
);
export const sweepLag = histogram(
  'seat_expiry_sweep_lag_seconds',
  'From a hold’s expireAt until its seat was freed (Redis time), observed when published',
  [],
  [0.05, 0.1, 0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30, 60],
);
export const malformedRecords = counter(
  'seat_outbox_malformed_total',
  'Outbox records that could not become a CloudEvent, moved aside',
);
export const relayRedisErrors = counter(
  'seat_outbox_relay_redis_errors_total',
  'Relay passes that failed on Redis (records stay; the Kafka producer is kept)',
);
