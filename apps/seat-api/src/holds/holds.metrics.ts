import { counter } from '@app/observability';

export const holdsCreated = counter('seat_holds_created_total', 'Holds created');
export const holdsRejected = counter('seat_holds_rejected_total', 'Hold requests refused, by reason', [
  'reason',
]);
export const holdChanges = counter('seat_hold_changes_total', 'Extend, release and confirm outcomes', [
  'action',
  'outcome',
]);
