import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { currentLock, DistributedLock, LockNotOwnedError } from '@app/distributed-lock';
import { ActionRefused } from '../audit/audited-actions';
import { AuthUser } from '../auth/auth-user';
import { hasRole, Role } from '../auth/roles';
import { CatalogueService } from '../catalogue/catalogue.service';
import { EventPolicy } from '../catalogue/policy/event-policy';
import {
  eventCancelled,
  eventNotFound,
  EventPolicyService,
  salesClosed,
} from '../catalogue/policy/event-policy.service';
import { BookingRepository } from './booking.repository';
import { ConfirmHoldUseCase, ConfirmResult } from './confirm/confirm-hold.use-case';
import { ConfirmSettlement } from './confirm/confirm-settlement';
import {
  bookingUnavailable,
  busyIfLockLost,
  extensionLimitReached,
  holdConfirmed,
  holdLimitExceeded,
  holdNotActive,
  holdNotFound,
  lifetimeExceeded,
  lockLostAsBusy,
  busy,
  rejectionReason,
  seatsLost,
  seatsNotFound,
  seatsUnavailable,
  staleFence,
  tooManySeats,
  ttlOutOfRange,
} from './hold-errors';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { HoldView } from './hold.view';
import { holdChanges, holdPrechecks, holdsCreated, holdsRejected } from './holds.metrics';
import { SeatDemand } from './seat-demand';
import { HOLD_SEAT_LOCK, HoldSeatLockHost, SEAT_LOCK, SeatLockSettings } from './seat-lock';
import { holdLetGoOfLock, HoldIds, HoldRecord, HoldStore, SeatConflict, StoreResult } from '../hold-store';
import { UnansweredHolds } from './unanswered-holds';

export { seatLockKeys } from './seat-lock';

/** How long reading a hold may wait for PostgreSQL to tell what became of a CONFIRMING attempt. */
const READ_SETTLE_TIMEOUT_MS = 1000;
/** The same, inside a locked extend or release (the lock's lease is running). */
const LOCKED_SETTLE_TIMEOUT_MS = 1000;
/** Holds sent again under a reloaded policy when the event's settings changed meanwhile, at most. */
const POLICY_ATTEMPTS = 3;

/** The hold store refused a hold: the event's settings changed since its policy was read (see createHold). */
class PolicyChanged extends Error {}

/**
 * How a hold made by staff on a customer's behalf is sent (holds/admin): as one audited action
 * (AuditedActions.run), whose id `create` hands to the hold script. `create` throws ActionRefused for a
 * refusal (nothing was written); anything else leaves open whether the hold was made.
 */
export type StaffHoldRun = (
  holdId: string,
  create: (actionId: string) => Promise<HoldRecord>,
) => Promise<HoldRecord>;

/**
 * Hold, extend, release (confirm: confirm/confirm-hold.use-case.ts). Each change locks the seats it
 * touches (all at once, briefly), checks right before its store write that the lock is still ours
 * (HeldLock.assertValid: a lease lost is answered 503 BUSY, nothing written), and hands the lock's
 * fencing token to the store, which refuses writes from a holder that lost its lock.
 *
 * A hold a confirm left CONFIRMING (PostgreSQL failed or timed out, or the process died) is decided from
 * PostgreSQL by whichever call meets it first (ConfirmSettlement), so GET, extend, release and confirm
 * agree with PostgreSQL without waiting for the reconciler.
 */
@Injectable()
export class HoldsService implements HoldSeatLockHost, OnModuleDestroy {
  private readonly logger = new Logger('Holds');
  /** Holds Redis may have made for requests answered 503: released by id (owner-checked, seat-locked). */
  private readonly unanswered = new UnansweredHolds((h) =>
    busyIfLockLost(() => this.lockedRelease(h.eventId, h.seatIds, h.holdId, h.userId)),
  );

  constructor(
    private readonly store: HoldStore,
    private readonly catalogue: CatalogueService,
    private readonly bookings: BookingRepository,
    private readonly settlement: ConfirmSettlement,
    private readonly confirmHold: ConfirmHoldUseCase,
    private readonly config: AppConfig,
    /** Read by SEAT_LOCK / HOLD_SEAT_LOCK (seat-lock.ts) on each locked call. */
    readonly seatLock: SeatLockSettings,
    private readonly demand: SeatDemand,
    private readonly policies: EventPolicyService,
  ) {}

  /** `user`: the holder; with `staff`, a customer for whom staff make the hold as an audited action. */
  async hold(
    user: AuthUser,
    eventId: string,
    seatIds: string[],
    ttlSeconds?: number,
    staff?: StaffHoldRun,
  ): Promise<HoldView> {
    try {
      const hold = await this.createHold(user, eventId, seatIds, ttlSeconds, staff);
      this.demand.record(eventId, false);
      holdsCreated.inc();
      return HoldView.of(hold);
    } catch (e) {
      const error = lockLostAsBusy(e);
      // every refusal is counted by its reason, whichever layer refused (limits, catalogue, store, lock)
      holdsRejected.inc({ reason: rejectionReason(error) });
      this.demand.record(eventId, error instanceof DomainError && error.code === ErrorCode.SEATS_UNAVAILABLE);
      throw error;
    }
  }

  private async createHold(
    user: AuthUser,
    eventId: string,
    seatIds: string[],
    ttlSeconds?: number,
    staff?: StaffHoldRun,
  ): Promise<HoldRecord> {
    // an event past its retention may have no keys left in Redis: refused (EVENT_ENDED), never re-created
    const catalogue = await this.catalogue.requireSeatsToHold(eventId);
    const unknown = seatIds.filter((s) => !catalogue.has(s));
    if (unknown.length > 0) {
      throw seatsNotFound(unknown);
    }
    // sorted: the lock keys and the store's conflict list come out the same whatever order the client used
    const sorted = [...seatIds].sort();
    if (this.demand.isRush(eventId)) {
      // a flash sale: most requests want seats already held; a lock-free read answers them in one round
      // trip (true when read, as any 409 is) and leaves the seat lock to requests that can get the seats
      const taken = await this.store.seatConflicts(eventId, sorted);
      holdPrechecks.inc({ seats: taken.length > 0 ? 'taken' : 'free' });
      if (taken.length > 0) {
        throw seatsUnavailable(taken);
      }
    }
    // The event's settings (sales open, limits), as this instance last read them: the store makes the hold
    // only under that policy's version, else POLICY_CHANGED and it is sent again under the reloaded one
    let policy = await this.policies.forHold(eventId);
    for (let attempt = 1; ; attempt++) {
      if (!policy) {
        throw eventNotFound(eventId);
      }
      const refusal = this.refusalUnder(policy, sorted.length, ttlSeconds);
      if (refusal) {
        // a kept policy may be older than Redis's version (reopened on another instance): refuse on the current one
        const current = await this.policies.confirmed(policy);
        if (current === policy || attempt >= POLICY_ATTEMPTS) {
          throw refusal;
        }
        policy = current;
        continue;
      }
      const ttl = ttlSeconds ?? policy.limits.defaultHoldTtlSeconds;
      // the id is drawn before the hold is sent: if its reply is lost, the service still knows what to undo
      const holdId = HoldIds.generate(eventId);
      const sent = { holdId, eventId, userId: user.id, seatIds: sorted, untilMs: Date.now() + ttl * 1000 };
      const under = policy;
      const create = (actionId?: string) =>
        this.lockedCreate(eventId, sorted, user.id, ttl * 1000, holdId, under, actionId);
      try {
        // a staff hold whose reply was lost is not undone: its audited action decides it from Redis's
        // ledger and answers the hold it made (AuditedActions)
        return await (staff
          ? staff(holdId, (actionId) => create(actionId).catch(asRefusal))
          : this.unanswered.run(sent, () => create()));
      } catch (e) {
        if (!(e instanceof PolicyChanged) || attempt >= POLICY_ATTEMPTS) {
          throw e instanceof PolicyChanged ? policyBusy() : e;
        }
        policy = await this.policies.reload(eventId);
      }
    }
  }

  /**
   * Why `policy` refuses this hold, if it does: sales closed or cancelled, too many seats, ttl out of range.
   * Also the check of a best-available hold (allocation/best-available.service.ts).
   */
  refusalUnder(policy: EventPolicy, seats: number, ttlSeconds?: number): DomainError | null {
    if (policy.sales === 'CANCELLED') {
      return eventCancelled(policy.eventId);
    }
    if (policy.sales === 'CLOSED') {
      return salesClosed(policy.eventId);
    }
    if (seats > policy.limits.maxSeatsPerHold) {
      return tooManySeats(policy.limits.maxSeatsPerHold);
    }
    const { minTtlSeconds } = this.config.holds;
    const max = policy.limits.maxHoldTtlSeconds;
    if (ttlSeconds !== undefined && (ttlSeconds < minTtlSeconds || ttlSeconds > max)) {
      return ttlOutOfRange(minTtlSeconds, max);
    }
    return null;
  }

  /**
   * Releases one live hold of a cancelled event as its owner would (seat lock, fencing, a CONFIRMING
   * hold decided from PostgreSQL first). 'released', or 'booked' when a confirm got there first, or
   * 'ended' when the hold had already ended.
   */
  async releaseForCancel(hold: {
    eventId: string;
    holdId: string;
    userId: string;
    seatIds: string[];
  }): Promise<'released' | 'booked' | 'ended'> {
    const r = await busyIfLockLost(() =>
      this.lockedRelease(hold.eventId, [...hold.seatIds].sort(), hold.holdId, hold.userId),
    );
    holdChanges.inc({ action: 'release', outcome: r.ok ? 'ok' : r.error });
    if (r.ok) {
      return r.hold.status === 'RELEASED' ? 'released' : 'ended';
    }
    switch (r.error) {
      case 'HOLD_NOT_FOUND':
        return 'ended';
      case 'HOLD_CONFIRMED':
        return 'booked';
      case 'STALE_FENCING_TOKEN':
        throw staleFence('release');
    }
  }

  onModuleDestroy(): void {
    this.unanswered.close();
  }

  /** The caller's own hold; staff (agent, admin) read anyone's. */
  async get(user: AuthUser, holdId: string): Promise<HoldView> {
    const staff = hasRole(user.roles, Role.AGENT);
    const hold = await this.store.getHold(holdId);
    if (hold && (hold.userId === user.id || staff)) {
      return HoldView.of(await this.settledForRead(hold));
    }
    if (!hold) {
      // past the retention period Redis forgot the hold; a booking still tells what became of it
      const booked = HoldIds.parse(holdId) ? await this.bookings.confirmedHold(holdId) : null;
      if (booked && (booked.userId === user.id || staff)) {
        return HoldView.of(booked);
      }
    }
    throw holdNotFound(holdId);
  }

  /**
   * A CONFIRMING hold read without the seat lock: finished if PostgreSQL has its booking, given up if
   * its deadline passed (see ConfirmSettlement). If PostgreSQL does not answer, the read still answers
   * with what Redis says (ACTIVE, being confirmed): a GET must not fail because the booking store is slow.
   */
  private async settledForRead(hold: HoldRecord): Promise<HoldRecord> {
    if (hold.status !== 'CONFIRMING') {
      return hold;
    }
    try {
      return (await this.settlement.settle(hold, { seatLockHeld: false, timeoutMs: READ_SETTLE_TIMEOUT_MS }))
        .hold;
    } catch (e) {
      this.logger.warn(`hold ${hold.holdId}: confirm outcome not readable from PostgreSQL: ${String(e)}`);
      return hold;
    }
  }

  /** `requestKey`: the same key again is the same extension retried (HoldStore.extendHold). */
  async extend(user: AuthUser, holdId: string, ttlSeconds: number, requestKey?: string): Promise<HoldView> {
    const limits = this.config.holds;
    const hold = await this.ownHold(user, holdId);
    // the hold's own terms, given when it was made (the deployment's for a hold that has none recorded)
    const maxExtensions = hold.maxExtensions ?? limits.maxExtensions;
    this.assertTtl(ttlSeconds, hold.maxTtlMs ? hold.maxTtlMs / 1000 : limits.maxTtlSeconds);
    const r = await busyIfLockLost(() =>
      this.lockedExtend(
        hold.eventId,
        hold.seatIds,
        holdId,
        user.id,
        ttlSeconds * 1000,
        maxExtensions,
        requestKey,
      ),
    );
    holdChanges.inc({ action: 'extend', outcome: r.ok ? 'ok' : r.error });
    if (r.ok) {
      return HoldView.of(r.hold);
    }
    switch (r.error) {
      case 'HOLD_NOT_FOUND':
        throw holdNotFound(holdId);
      case 'HOLD_NOT_ACTIVE':
        throw holdNotActive(r.hold);
      case 'HOLD_LIFETIME_EXCEEDED':
        throw lifetimeExceeded((hold.maxExpireAtMs - hold.createdAtMs) / 1000);
      case 'EXTENSION_LIMIT_REACHED':
        throw extensionLimitReached(maxExtensions);
      case 'SEATS_LOST':
        throw seatsLost(r.lostSeats);
      case 'STALE_FENCING_TOKEN':
        throw staleFence('extend');
    }
  }

  /** True when this call released the seats, false when the hold had already ended. */
  async release(user: AuthUser, holdId: string): Promise<boolean> {
    const hold = await this.ownHold(user, holdId);
    if (hold.status === 'RELEASED' || hold.status === 'EXPIRED') {
      // already over: nothing to lock; still let the store settle an unswept expiry (records its events)
      if (hold.status === 'EXPIRED') {
        await this.store.releaseHold({ holdId, userId: user.id, fencingToken: 0 });
      }
      return false;
    }
    const r = await busyIfLockLost(() => this.lockedRelease(hold.eventId, hold.seatIds, holdId, user.id));
    holdChanges.inc({ action: 'release', outcome: r.ok ? 'ok' : r.error });
    if (r.ok) {
      return true;
    }
    switch (r.error) {
      case 'HOLD_NOT_FOUND':
        throw holdNotFound(holdId);
      case 'HOLD_CONFIRMED':
        throw holdConfirmed();
      case 'STALE_FENCING_TOKEN':
        throw staleFence('release');
    }
  }

  /** Returns the booking and whether this call created it (201) or replayed it (200). */
  confirm(user: AuthUser, holdId: string, orderId: string): Promise<ConfirmResult> {
    return this.confirmHold.execute(user, holdId, orderId);
  }

  /** The lock-free read HOLD_SEAT_LOCK answers contention with (see seat-lock.ts). */
  takenSeats(eventId: string, seatIds: readonly string[]): Promise<SeatConflict[]> {
    return this.store.seatConflicts(eventId, seatIds);
  }

  // ---- the locked critical sections: seats of one event, all at once, short lease

  @DistributedLock(HOLD_SEAT_LOCK)
  private async lockedCreate(
    eventId: string,
    seatIds: string[],
    userId: string,
    ttlMs: number,
    holdId: string,
    policy: EventPolicy,
    actionId?: string,
  ): Promise<HoldRecord> {
    const lock = currentLock();
    const { limits } = policy;
    // a replica WAIT, and the undo of a hold it cannot confirm, still have to run under the lock
    const last = !this.store.confirmsOnReplicas;
    lock.assertValid();
    const written = this.store.createHold({
      eventId,
      holdId,
      userId,
      seatIds,
      ttlMs,
      maxLifetimeMs: limits.maxHoldLifetimeSeconds * 1000,
      maxSeatsPerUser: limits.maxSeatsPerUser,
      // the hold is made under this policy only, and keeps its caps in its record
      policyVersion: policy.version,
      maxExtensions: limits.maxExtensions,
      maxTtlMs: limits.maxHoldTtlSeconds * 1000,
      // pipelined (HOLD_SEAT_LOCK): the script checks the lock is ours; 0 until the grant is known
      fencingToken: lock.fencingToken,
      lock: lock.ownership,
      letGoOfLock: last,
      actionId,
    });
    // the hold script is the section's last write: it deletes the seat lock's keys itself, so the section
    // is two commands (acquire, hold script) in one round trip
    const r = await (last ? lock.letGoInScript(written, holdLetGoOfLock) : written);
    if (r.ok) {
      return r.hold;
    }
    switch (r.error) {
      case 'SEATS_UNAVAILABLE':
        throw seatsUnavailable(r.conflicts);
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
      case 'NOT_LOCKED':
        // the seat lock was not ours when the script ran: another holder's (the pipelined attempt found it
        // busy), or the acquire reached Redis after the script (a Cluster node that had to be sent the
        // lock's script again after a failover). The decorator runs this again with the lock acquired
        // first; if even that write is refused, the lock was lost: 503 BUSY (lockLostAsBusy)
        throw new LockNotOwnedError(lock.keys);
    }
  }

  @DistributedLock(SEAT_LOCK)
  private lockedExtend(
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
  private lockedRelease(_eventId: string, _seatIds: string[], holdId: string, userId: string) {
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

  /**
   * The least ttl is a deployment setting (a test deployment may allow 1 s); the most, the event's (the
   * hold's own, for an extension).
   */
  private assertTtl(ttlSeconds: number, maxTtlSeconds: number): void {
    const { minTtlSeconds } = this.config.holds;
    if (ttlSeconds < minTtlSeconds || ttlSeconds > maxTtlSeconds) {
      throw ttlOutOfRange(minTtlSeconds, maxTtlSeconds);
    }
  }

  private async ownHold(user: AuthUser, holdId: string): Promise<HoldRecord> {
    const hold = await this.store.getHold(holdId);
    if (!hold || hold.userId !== user.id) {
      throw holdNotFound(holdId);
    }
    return hold;
  }
}

/**
 * What a staff hold's attempt threw, as its audited action takes it: the store's refusals (a domain error,
 * POLICY_CHANGED) wrote nothing; any other failure leaves that open.
 */
function asRefusal(e: unknown): never {
  throw e instanceof DomainError || e instanceof PolicyChanged ? new ActionRefused(e) : e;
}

/** The event's settings kept changing under this hold (each attempt met a newer version): nothing was held. */
const policyBusy = () =>
  new DomainError(ErrorCode.BUSY, "The event's settings are being changed right now; try again shortly");
