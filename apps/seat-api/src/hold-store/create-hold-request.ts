import { LockOwnership } from '@app/distributed-lock';
import type { EventScriptArgs } from './hold-scripts';
import { StaffAction, staffActionArguments } from './staff-action';
import { assertWholeNumbers } from './store-arguments';

/**
 * The terms a new hold is made under (lua/manifest.ts HOLD_TERMS), whichever way its seats are chosen
 * (seats named: HoldStore.createHold; best available: AllocationStore.bestAvailable).
 */
export interface HoldTerms {
  ttlMs: number;
  maxLifetimeMs: number;
  maxSeatsPerUser: number;
  /**
   * The event policy version the hold was checked against (EventAdminStore): the hold is made only while
   * it is still the event's, else POLICY_CHANGED. Left out, no version is checked (store-level tests).
   */
  policyVersion?: number;
  /** The hold's own caps, kept in its record (HoldRecord.maxExtensions, maxTtlMs). */
  maxExtensions?: number;
  maxTtlMs?: number;
  /**
   * How the hold passes the event's on-sale queue, while one is open (lua/queue.lua q_gate): a shopper's
   * admission pass (`entry`: the in-event part of its queue entry's id), or `bypass` for holds that need
   * none (staff's on a customer's behalf, waiting-list offers). Left out: no pass, refused QUEUE_REQUIRED
   * while a queue is open.
   */
  admission?: { entry: string; pass: string } | 'bypass';
  /** What the hold is priced by (HoldRecord.pricing), kept in its record; left out: not priced. */
  pricing?: string;
}

/** How many places of one general-admission area a hold takes (lua/places.lua). */
export interface PlaceCount {
  area: string;
  quantity: number;
}

/** Area names as the layout allows them: no ':' or ',' (the script's argument separates with those). */
const AREA_NAME = /^[A-Za-z0-9_-]{1,12}$/;

/** What HoldStore.createHold is asked: one hold of these seats and places, all or none. */
export interface CreateHoldRequest extends HoldTerms {
  eventId: string;
  holdId: string;
  userId: string;
  seatIds: string[];
  /** Places of general-admission areas, each area once; taken in the same step as the seats. */
  places?: PlaceCount[];
  fencingToken: number;
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
 * A new hold's holder and terms as the hold scripts read them (create-hold.lua, best-available.lua): a
 * request the script would misread is thrown out here, before Redis.
 */
export function holdTermsArguments(what: string, hid: string, userId: string, t: HoldTerms) {
  if (/[\n=]/.test(userId)) {
    // the users index keeps "\n<userId>=<hids>" entries (lua/user-index.lua); the API's ids never hold these
    throw new Error(`${what}: a user id cannot contain "=" or a line break, got ${JSON.stringify(userId)}`);
  }
  assertWholeNumbers(
    what,
    { ttlMs: t.ttlMs, maxLifetimeMs: t.maxLifetimeMs, maxSeatsPerUser: t.maxSeatsPerUser },
    1,
  );
  assertWholeNumbers(what, { policyVersion: t.policyVersion ?? 1, maxTtlMs: t.maxTtlMs ?? 1 }, 1);
  assertWholeNumbers(what, { maxExtensions: t.maxExtensions ?? 0 }, 0);
  const pass = typeof t.admission === 'object' ? t.admission : undefined;
  return {
    hid,
    userId,
    ttlMs: t.ttlMs,
    maxLifetimeMs: t.maxLifetimeMs,
    maxSeatsPerUser: t.maxSeatsPerUser,
    policyVersion: t.policyVersion ?? '',
    maxExtensions: t.maxExtensions ?? '',
    maxTtlMs: t.maxTtlMs ?? '',
    queueEntry: pass?.entry ?? '',
    queuePass: pass?.pass ?? '',
    queueBypass: t.admission === 'bypass' ? '1' : '',
    pricing: t.pricing ?? '',
  };
}

/** Checks the request and returns lua/create-hold.lua's own arguments, by name. */
export function createHoldArguments(
  p: CreateHoldRequest,
  hid: string,
  ledgerTtlMs: number,
): EventScriptArgs<'holdCreate'> {
  const places = p.places ?? [];
  if ((p.seatIds.length === 0 && places.length === 0) || new Set(p.seatIds).size !== p.seatIds.length) {
    throw new Error('createHold needs distinct seat ids or places');
  }
  if (
    new Set(places.map((x) => x.area)).size !== places.length ||
    places.some((x) => !AREA_NAME.test(x.area))
  ) {
    throw new Error('createHold needs each area once, named as the layout names areas');
  }
  for (const x of places) {
    assertWholeNumbers('createHold', { quantity: x.quantity }, 1);
  }
  assertWholeNumbers('createHold', { fencingToken: p.fencingToken }, 0);
  return {
    ...holdTermsArguments('createHold', hid, p.userId, p),
    fencingToken: p.fencingToken,
    lockOwner: p.lock?.owner ?? '',
    letGoOfLock: p.lock && p.letGoOfLock ? '1' : '',
    ...staffActionArguments(p.action, ledgerTtlMs),
    places: places.map((x) => `${x.area}:${x.quantity}`).join(','),
    seatIds: p.seatIds,
  };
}
