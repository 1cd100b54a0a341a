import { Injectable, Logger } from '@nestjs/common';
import { currentLock, DistributedLock, LockNotOwnedError } from '@app/distributed-lock';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { ConfirmSettlement } from './confirm/confirm-settlement';
import {
  bookingUnavailable,
  busy,
  holdLimitExceeded,
  seatsUnavailable,
  soldOut,
  staleFence,
} from './hold-errors';
import { PolicyChanged } from './hold-policy';
import { queueRefused } from '../queue/queue-errors';
import { HOLD_SEAT_LOCK, HoldSeatLockHost, SEAT_LOCK, SeatLockSettings } from './seat-lock';
import {
  CreateHoldResult,
  holdLetGoOfLock,
  PlaceCount,
  HoldRecord,
  HoldStore,
  HoldTerms,
  SeatConflict,
  StaffAction,
  StoreResult,
} from '../hold-store';

/** How long a locked extend or release may wait for PostgreSQL to tell what became of a CONFIRMING attempt. */
const LOCKED_SETTLE_TIMEOUT_MS = 1000;

/**
 * The locked critical sections of HoldsService: the seats of one event, all at once, short lease. Each
 * checks right before its store write that the lock is still ours (HeldLock.assertValid: a lease lost is
 * answered 503 BUSY, nothing written) and hands the lock's fencing token to the store, which refuses
 * writes from a holder that lost its lock.
 */
@Injectable()
export class LockedHoldChanges implements HoldSeatLockHost {
  private readonly logger = new Logger('Holds');

  constructor(
    private readonly store: HoldStore,
    private readonly settlement: ConfirmSettlement,
    /** Read by SEAT_LOCK / HOLD_SEAT_LOCK (seat-lock.ts) on each locked call. */
    readonly seatLock: SeatLockSettings,
  ) {}

  /** The lock-free read HOLD_SEAT_LOCK answers contention with (see seat-lock.ts). */
  takenSeats(eventId: string, seatIds: readonly string[]): Promise<SeatConflict[]> {
    return this.store.seatConflicts(eventId, seatIds);
  }

  @DistributedLock(HOLD_SEAT_LOCK)
  async create(
    eventId: string,
    seatIds: string[],
    userId: string,
    holdId: string,
    terms: HoldTerms,
    action?: StaffAction,
    places?: PlaceCount[],
  ): Promise<HoldRecord> {
    const lock = currentLock();
    // a replica WAIT, and the undo of a hold it cannot confirm, still have to run under the lock
    const last = !this.store.confirmsOnReplicas;
    lock.assertValid();
    const written = this.store.createHold({
      ...terms,
      eventId,
      holdId,
      userId,
      seatIds,
      places,
      // pipelined (HOLD_SEAT_LOCK): the script checks the lock is ours; 0 until the grant is known
      fencingToken: lock.fencingToken,
      lock: lock.ownership,
      letGoOfLock: last,
      action,
    });
    // the hold script is the section's last write: it deletes the seat lock's keys itself, so the section
    // is two commands (acquire, hold script) in one round trip
    const r = await (last ? lock.letGoInScript(written, holdLetGoOfLock) : written);
    return heldOrRefused(eventId, r, lock.keys);
  }

  /**
   * A new hold of places of general-admission areas alone: no seat lock, since its Lua step alone decides
   * (an area's counter cannot be taken twice: ADR 0012); fencing token 0, below every counter.
   */
  async createPlaces(
    eventId: string,
    places: PlaceCount[],
    userId: string,
    holdId: string,
    terms: HoldTerms,
    action?: StaffAction,
  ): Promise<HoldRecord> {
    const r = await this.store.createHold({
      ...terms,
      eventId,
      holdId,
      userId,
      seatIds: [],
      places,
      fencingToken: 0,
      action,
    });
    return heldOrRefused(eventId, r, []);
  }

  @DistributedLock(SEAT_LOCK)
  extend(
    _eventId: string,
    _seatIds: string[],
    holdId: string,
    userId: string,
    ttlMs: number,
    maxExtensions: number,
    requestKey?: string,
  ) {
    const lock = currentLock(); // here, before any await (see currentLock)
    return this.afterSettling(() => {
      lock.assertValid();
      const fencingToken = lock.fencingToken;
      return this.store.extendHold({ holdId, userId, ttlMs, maxExtensions, fencingToken, requestKey });
    }, 'HOLD_NOT_ACTIVE');
  }

  @DistributedLock(SEAT_LOCK)
  release(_eventId: string, _seatIds: string[], holdId: string, userId: string) {
    const lock = currentLock();
    return this.afterSettling(() => {
      lock.assertValid();
      return this.store.releaseHold({ holdId, userId, fencingToken: lock.fencingToken });
    }, 'HOLD_CONFIRMED');
  }

  /**
   * Runs a locked store change; if the store refused because the hold is CONFIRMING (a confirm that
   * failed or died left it so; with the seat lock held, no live confirm is writing it), the attempt is
   * decided from PostgreSQL first and the change runs once more on the hold as it now is: ACTIVE again
   * (extend and release work) or CONFIRMED (they refuse, as for any confirmed hold).
   */
  private async afterSettling<E extends string>(
    change: () => Promise<StoreResult<E>>,
    refusalWhenConfirming: E,
  ): Promise<StoreResult<E>> {
    const first = await change();
    if (first.ok || first.error !== refusalWhenConfirming || first.hold?.status !== 'CONFIRMING') {
      return first;
    }
    try {
      await this.settlement.settle(first.hold, { seatLockHeld: true, timeoutMs: LOCKED_SETTLE_TIMEOUT_MS });
    } catch (e) {
      this.logger.warn(
        `hold ${first.hold.holdId}: confirm outcome not readable from PostgreSQL: ${String(e)}`,
      );
      throw bookingUnavailable(
        'A confirm of this hold is still being decided and the booking store does not answer. Try again',
      );
    }
    return change();
  }
}

/** A new hold's store answer: the hold, or the refusal as the API answers it. */
function heldOrRefused(eventId: string, r: CreateHoldResult, lockKeys: readonly string[]): HoldRecord {
  if (r.ok) {
    return r.hold;
  }
  switch (r.error) {
    case 'SEATS_UNAVAILABLE':
      throw seatsUnavailable(r.conflicts);
    case 'SOLD_OUT':
      throw soldOut(r.areas);
    case 'HOLD_LIMIT_EXCEEDED':
      throw holdLimitExceeded(r.heldSeats, r.limit);
    case 'STALE_FENCING_TOKEN':
      throw staleFence('hold');
    case 'POLICY_CHANGED':
      throw new PolicyChanged();
    case 'ACTION_CANCELLED':
      // this request took so long that the audit gave its action up (AuditedActions.settle)
      throw busy('The hold took too long and was given up; nothing was held. Try again');
    case 'EVENT_ENDED':
      throw new DomainError(
        ErrorCode.EVENT_ENDED,
        `Event ${eventId} is over: its seats can no longer be held`,
      );
    case 'QUEUE_REQUIRED':
    case 'ADMISSION_INVALID':
      throw queueRefused(eventId, r);
    case 'NOT_LOCKED':
      // the seat lock was not ours when the script ran: another holder's (the pipelined attempt found it
      // busy), or the acquire reached Redis after the script (a Cluster node that had to be sent the
      // lock's script again after a failover). The decorator runs this again with the lock acquired
      // first; if even that write is refused, the lock was lost: 503 BUSY (lockLostAsBusy)
      throw new LockNotOwnedError(lockKeys);
  }
}
