/**
 * One audited staff action as its change is asked of Redis: its id (the audit entry's) and what the entry
 * records, which the change's script puts on the seat.status stream with the change (StaffActionRecorded).
 */
export interface StaffAction {
  id: string;
  actor: string;
  /** The audit's name of the action (AuditAction). */
  action: string;
  target: string;
  reason?: string;
}

/** The script arguments that describe a staff action (lua/hold-lifecycle.lua staff_applied), in order. */
export const staffActionArguments = (a: StaffAction): string[] => [
  a.actor,
  a.action,
  a.target,
  a.reason ?? '',
];
