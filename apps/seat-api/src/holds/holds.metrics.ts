import { counter } from '@app/observability';

export const holdsCreated = counter('seat_holds_created_total', 'Holds created');
export const holdsRejected = counter('seat_holds_rejected_total', 'Hold requests refused, by reason', [
  'reason',
]);
export const holdContention = counter(
  'seat_hold_contention_reads_total',
  'Lock-free seat reads of hold requests that found their seat lock busy: seats taken (answered 409) or free (waited)',
  ['seats'],
);
export const holdPrechecks = counter(
  'seat_hold_prechecks_total',
  'Lock-free seat reads before locking, made while an event is in a rush (holds/seat-demand.ts): seats taken (answered 409) or free (went on to lock)',
  ['seats'],
);
export const holdChanges = counter(
  'seat_hold_changes_total',
  'Extend, release, confirm and line-change outcomes',
  ['action', 'outcome'],
);
