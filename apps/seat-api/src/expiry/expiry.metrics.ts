import { counter, histogram } from '@app/observability';

export const sweepDuration = histogram(
  'seat_sweep_duration_seconds',
  'Duration of one sweep over all events',
);
export const seatsExpired = counter('seat_expired_seats_total', 'Seats freed by the sweeper');
export const stuckConfirms = counter('seat_confirm_reconciled_total', 'Stuck confirms resolved, by outcome', [
  'outcome',
]);
