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

/**
 * The script arguments that describe a staff action (lua/manifest.ts STAFF_ACTION; hold-lifecycle.lua
 * staff_applied), '' throughout for a change that is no staff action. `ledgerTtlMs`: how long the event's
 * staff ledger keeps the action's mark.
 */
export const staffActionArguments = (a: StaffAction | undefined, ledgerTtlMs: number) => ({
  actionId: a?.id ?? '',
  ledgerTtlMs,
  actor: a?.actor ?? '',
  auditAction: a?.action ?? '',
  target: a?.target ?? '',
  reason: a?.reason ?? '',
});
