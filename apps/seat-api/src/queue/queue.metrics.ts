import { counter, gauge, histogram } from '@app/observability';

// per event: only events with a queue, and their series go when the queue does (QueueStatusCache)
export const queueWaiting = gauge('queue_waiting', 'Queue entries whose turn has not come, by event', [
  'event',
]);
export const queueActiveShoppers = gauge(
  'queue_active_shoppers',
  'Admitted shoppers whose turn has not ended, by event',
  ['event'],
);
export const queueAdmitted = counter(
  'queue_admitted_total',
  'Shoppers admitted by the queue steps of this instance, by event (rate() of it: admitted per minute)',
  ['event'],
);
export const queueWait = histogram(
  'queue_wait_seconds',
  'How long each admitted shopper waited from joining to admission',
  [],
  [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
);
export const queueStepFailures = counter('queue_step_failures_total', 'Queue steps that failed (Redis)');
