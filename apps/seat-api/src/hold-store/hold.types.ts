/**
 * The hold store's vocabulary. A hold is one user's claim on some seats of one event until
 * `expireAtMs` (Redis time). Statuses:
 *   ACTIVE      held; counts as HELD only while expireAtMs > now (lazy expiry, no sweeper needed)
 *   CONFIRMING  confirm is writing the booking to PostgreSQL; the sweeper leaves it alone until
 *               confirmDeadlineMs, after which the confirm reconciler repairs it
 *   CONFIRMED   booked; its seats stay BOOKED
 *   RELEASED    given back by the user
 *   EXPIRED     ran out; each of its seats produced one SeatExpired outbox record
 * Terminal holds stay readable for the retention period, then the sweeper forgets them.
 */
export type HoldStatus = 'ACTIVE' | 'CONFIRMING' | 'CONFIRMED' | 'RELEASED' | 'EXPIRED';

export type SeatState = 'AVAILABLE' | 'HELD' | 'BOOKED';

export interface HoldRecord {
  holdId: string;
  eventId: string;
  userId: string;
  /** As stored, except that an ACTIVE hold past its expiry reads as EXPIRED. */
  status: HoldStatus;
  seatIds: string[];
  createdAtMs: number;
  expireAtMs: number;
  /** createdAt + the lifetime cap: no extension may push expireAt past it. */
  maxExpireAtMs: number;
  extensionsUsed: number;
  /** The seat lock's fencing token of the last write to this hold. */
  fencingToken: number;
  orderId: string | null;
  endedAtMs: number | null;
  confirmDeadlineMs: number | null;
  /** Redis TIME when this record was read: compute expiresInSeconds from it, never from the app clock. */
  nowMs: number;
  /**
   * The hold's own caps, given when it was made (the event's settings then): how often it may be
   * extended, and the longest ttl an extension may ask. null: not recorded (a hold made before they were);
   * absent: a hold read from its booking, which is over.
   */
  maxExtensions?: number | null;
  maxTtlMs?: number | null;
  /**
   * What the hold is priced by, as the pricing feature wrote it (its price-list version, promo code and
   * ticket types; opaque to the store): '' for a hold that is not priced; absent for a hold read from its
   * booking, which keeps its prices itself.
   */
  pricing?: string;
  /** The places of general-admission areas the hold takes, by area ([] for a hold of seats alone). */
  places?: { area: string; quantity: number }[];
}

export interface SeatConflict {
  seatId: string;
  /** ORPHAN_SEAT: free, but the hold would leave it alone in its row (the event's orphan rule). */
  reason: 'HELD' | 'BOOKED' | 'ORPHAN_SEAT';
}

/**
 * A seat of a live hold that is no longer the hold's (a booking restored from PostgreSQL, or another
 * hold's committed booking, took it), and what it is now. Extend and confirm refuse with these.
 */
export interface LostSeat {
  seatId: string;
  state: SeatState;
}

export type StoreFailure<E extends string> = {
  ok: false;
  error: E;
  hold?: HoldRecord;
  /** With SEATS_LOST only. */
  lostSeats?: LostSeat[];
};
export type StoreResult<E extends string> = { ok: true; hold: HoldRecord } | StoreFailure<E>;

export type CreateHoldResult =
  | { ok: true; hold: HoldRecord }
  | { ok: false; error: 'SEATS_UNAVAILABLE'; conflicts: SeatConflict[] }
  /** An area of general admission has too few free places: each such area and how many are free. */
  | { ok: false; error: 'SOLD_OUT'; areas: { area: string; free: number }[] }
  | { ok: false; error: 'HOLD_LIMIT_EXCEEDED'; heldSeats: number; limit: number }
  | { ok: false; error: 'STALE_FENCING_TOKEN' }
  /** The seat lock given to createHold was not (or no longer) the caller's when the script ran. */
  | { ok: false; error: 'NOT_LOCKED' }
  /** The event's policy version is no longer the one given (`current`: the stored one, '' for none). */
  | { ok: false; error: 'POLICY_CHANGED'; current: string }
  /** The event is over by Redis time: past its retain-until, or its keys deleted (nothing was written). */
  | { ok: false; error: 'EVENT_ENDED' }
  /** The staff action the hold was made for was given up (settle-staff-action.lua): nothing was written. */
  | { ok: false; error: 'ACTION_CANCELLED' }
  | QueueRefusal;

/**
 * The event's on-sale queue is open and the hold came without an admission pass (QUEUE_REQUIRED), or with
 * one it does not take (ADMISSION_INVALID: `why` NOT_ISSUED, USED or EXPIRED): lua/queue.lua q_gate.
 */
export type QueueRefusal =
  | { ok: false; error: 'QUEUE_REQUIRED' }
  | { ok: false; error: 'ADMISSION_INVALID'; why: 'NOT_ISSUED' | 'USED' | 'EXPIRED' };

/** A queue refusal of a hold script's reply, or null for any other reply. */
export function queueRefusalOf(reply: [string, ...unknown[]]): QueueRefusal | null {
  if (reply[0] === 'QUEUE_REQUIRED') {
    return { ok: false, error: 'QUEUE_REQUIRED' };
  }
  if (reply[0] === 'ADMISSION_INVALID') {
    return { ok: false, error: 'ADMISSION_INVALID', why: reply[1] as 'NOT_ISSUED' | 'USED' | 'EXPIRED' };
  }
  return null;
}

/**
 * Whether a createHold given `lock` and `letGoOfLock` deleted the lock's keys: with every answer but
 * NOT_LOCKED (the lock was not the caller's, so nothing was touched). The `letGo` of HeldLock.letGoInScript.
 */
export const holdLetGoOfLock = (result: CreateHoldResult): boolean =>
  result.ok || result.error !== 'NOT_LOCKED';

/** One SeatExpired record as the expiry scripts append it to the event's outbox stream. */
export interface SeatExpiredRecord {
  /** Stream entry id; with the event id it makes the CloudEvent id, stable across re-deliveries. */
  entryId: string;
  eventId: string;
  seatId: string;
  holdId: string;
  userId: string;
  expireAtMs: number;
  fencingToken: number;
  /** Redis time at which the seat was freed. */
  expiredAtMs: number;
}

export interface SweepResult {
  expiredHolds: number;
  expiredSeats: number;
  forgottenHolds: number;
  /** Events past their retention with no live hold whose keys were deleted. */
  removedEvents: number;
  /** CONFIRMING holds past their confirm deadline: the reconciler checks PostgreSQL for them. */
  stuckConfirming: string[];
  /** True when the batch was full: more may be due right now. */
  more: boolean;
}
