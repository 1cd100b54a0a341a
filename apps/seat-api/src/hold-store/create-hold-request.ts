import { LockOwnership } from '@app/distributed-lock';
import { StaffAction, staffActionArguments } from './staff-action';
import { assertWholeNumbers } from './store-arguments';

/** What HoldStore.createHold is asked: one hold of these seats, all or none. */
export interface CreateHoldRequest {
  eventId: string;
  holdId: string;
  userId: string;
  seatIds: string[];
  ttlMs: number;
  maxLifetimeMs: number;
  maxSeatsPerUser: number;
  fencingToken: number;
  /**
   * The event policy version the hold was checked against (EventAdminStore): the hold is made only while
   * it is still the event's, else POLICY_CHANGED. Left out, no version is checked (store-level tests).
   */
  policyVersion?: number;
  /** The hold's own caps, kept in its record (HoldRecord.maxExtensions, maxTtlMs). */
  maxExtensions?: number;
  maxTtlMs?: number;
  /**
   * The seat lock, checked in the script: the hold is made only while the lock is this one's, else
   * NOT_LOCKED. For a section pipelined with its acquire (fencingToken 0: the counter's value is used).
   */
  lock?: LockOwnership;
  /**
   * With `lock`: the script deletes the lock's keys with its answer (the section's last write,
   * HeldLock.letGoInScript), except when it answers NOT_LOCKED (see holdLetGoOfLock).
   */
  letGoOfLock?: boolean;
  /**
   * A hold made by staff on a customer's behalf: its audited action, marked applied in the event's staff
   * ledger and told on seat.status in the same script (StaffHoldStore, AuditedActions). Sent again with
   * the same id it answers the hold it made; refused ACTION_CANCELLED once the action was given up.
   */
  action?: StaffAction;
}

/**
 * Checks the request and returns lua/create-hold.lua's own arguments (ARGV[4..], in its order): a request
 * the script would misread is thrown out here, before Redis.
 */
export function createHoldArguments(
  p: CreateHoldRequest,
  hid: string,
  ledgerTtlMs: number,
): (string | number)[] {
  if (p.seatIds.length === 0 || new Set(p.seatIds).size !== p.seatIds.length) {
    throw new Error('createHold needs distinct seat ids');
  }
  if (/[\n=]/.test(p.userId)) {
    // the users index keeps "\n<userId>=<hids>" entries (lua/user-index.lua); the API's ids never hold these
    throw new Error(
      `createHold: a user id cannot contain "=" or a line break, got ${JSON.stringify(p.userId)}`,
    );
  }
  assertWholeNumbers(
    'createHold',
    { ttlMs: p.ttlMs, maxLifetimeMs: p.maxLifetimeMs, maxSeatsPerUser: p.maxSeatsPerUser },
    1,
  );
  assertWholeNumbers('createHold', { fencingToken: p.fencingToken }, 0);
  assertWholeNumbers('createHold', { policyVersion: p.policyVersion ?? 1, maxTtlMs: p.maxTtlMs ?? 1 }, 1);
  assertWholeNumbers('createHold', { maxExtensions: p.maxExtensions ?? 0 }, 0);
  return [
    hid,
    p.userId,
    p.ttlMs,
    p.maxLifetimeMs,
    p.maxSeatsPerUser,
    p.fencingToken,
    p.lock?.owner ?? '',
    p.lock && p.letGoOfLock ? '1' : '',
    p.policyVersion ?? '',
    p.maxExtensions ?? '',
    p.maxTtlMs ?? '',
    p.action?.id ?? '',
    ledgerTtlMs,
    ...(p.action ? staffActionArguments(p.action) : ['', '', '', '']),
    ...p.seatIds,
  ];
}
