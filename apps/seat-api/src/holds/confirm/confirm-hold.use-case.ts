import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { BookingEntity } from '@app/database';
import { currentLock, DistributedLock } from '@app/distributed-lock';
import type { HeldLock } from '@app/distributed-lock';
import { AuthUser } from '../../auth/auth-user';
import { BookingRepository, BookResult } from '../booking.repository';
import {
  bookingUnavailable,
  confirmedWithAnotherOrder,
  holdExpired,
  holdNotActive,
  holdNotFound,
  lockLostAsBusy,
  rejectionReason,
  seatsBooked,
  seatsLost,
  staleFence,
} from '../hold-errors';
import { BookingView } from '../hold.view';
import { holdChanges } from '../holds.metrics';
import { lockedSeatsOf, SEAT_LOCK, SeatLockHost, SeatLockSettings } from '../seat-lock';
import { HoldIds, HoldRecord, HoldStore } from '../../hold-store';
import { HoldPrices } from '../../pricing/hold-prices.service';
import { PricedSale } from '../../pricing/priced-sale';
import { promoCodeUnavailable } from '../../pricing/pricing-errors';
import { ConfirmSettlement, Settled } from './confirm-settlement';

/** How long deciding an earlier attempt may wait for PostgreSQL inside a confirm (marker + read). */
const SETTLE_TIMEOUT_MS = 1000;
/** Kept free at the end of the lease and deadline for the Redis write after the booking (<= 1/10 lease). */
const WRITE_MARGIN_MS = 100;

export interface ConfirmResult {
  /** true: this call wrote the booking (201); false: it replays an earlier one (200). */
  created: boolean;
  booking: BookingView;
}

/**
 * Confirm: book the hold's seats in PostgreSQL and mark them BOOKED in Redis. Under the seat lock:
 *   (1) beginConfirm: the hold becomes CONFIRMING under this attempt (the lock's fencing token), so the
 *       sweeper leaves it alone until the confirm deadline;
 *   (2) one transaction writes the booking, bounded by what is left of the lease and of the deadline;
 *   (3) finishConfirm: seats BOOKED.
 * Every way out of (2) ends in a state both stores agree on (ConfirmSettlement):
 *   - committed: 201 (a later call with the same orderId replays it: 200);
 *   - PostgreSQL failed or timed out: this attempt is decided at once (marker, then Redis gives it up)
 *     and the client gets 503 BOOKING_UNAVAILABLE + Retry-After with the hold still ACTIVE (nothing
 *     booked); its retry is a new attempt (201). If even the marker cannot be written, the hold stays
 *     CONFIRMING: the client's next call on the hold (or the reconciler, after the deadline) decides it
 *     first, so the retry gets 201, or 200 if the COMMIT had in fact gone through;
 *   - the process dies: the next call on the hold, or the reconciler, decides it the same way.
 * A PostgreSQL that does not answer at all (partition, frozen host) counts as timed out: every call on
 * it has a client-side deadline, so confirm answers within SETTLE_TIMEOUT_MS (the first read) + the
 * booking's budget (what is left of SEAT_LOCK_LEASE_MS and CONFIRM_TIMEOUT_MS) + SETTLE_TIMEOUT_MS (the
 * decision), never when the link comes back.
 */
@Injectable()
export class ConfirmHoldUseCase implements SeatLockHost {
  private readonly logger = new Logger('Holds');

  constructor(
    private readonly store: HoldStore,
    private readonly bookings: BookingRepository,
    private readonly settlement: ConfirmSettlement,
    private readonly config: AppConfig,
    /** Read by SEAT_LOCK (seat-lock.ts) on each locked call, and for the booking's time budget. */
    readonly seatLock: SeatLockSettings,
    private readonly prices: HoldPrices,
  ) {}

  async execute(user: AuthUser, holdId: string, orderId: string): Promise<ConfirmResult> {
    try {
      const result = await this.confirm(user, holdId, orderId);
      holdChanges.inc({ action: 'confirm', outcome: result.created ? 'ok' : 'replayed' });
      return result;
    } catch (e) {
      const error = lockLostAsBusy(e);
      holdChanges.inc({ action: 'confirm', outcome: rejectionReason(error) });
      throw error;
    }
  }

  private async confirm(user: AuthUser, holdId: string, orderId: string): Promise<ConfirmResult> {
    // PostgreSQL decides first: a replay must work even after Redis forgot the hold (retention)
    const existing = HoldIds.parse(holdId) ? await this.findBooking(holdId) : null;
    if (existing && existing.userId === user.id) {
      return this.replay(existing, orderId);
    }
    const hold = await this.store.getHold(holdId);
    if (!hold || hold.userId !== user.id) {
      throw holdNotFound(holdId);
    }
    // the price list and code read now, before the seat lock's lease runs (kept: the sale is made of them)
    await this.prices.saleOf(hold);
    return this.lockedConfirm(hold.eventId, lockedSeatsOf(hold), hold, orderId);
  }

  /** The hold's booking, read within SETTLE_TIMEOUT_MS: a silent PostgreSQL is a 503 before anything changed. */
  private async findBooking(holdId: string): Promise<BookingEntity | null> {
    try {
      return await this.bookings.findConfirmed(holdId, SETTLE_TIMEOUT_MS);
    } catch (e) {
      this.logger.warn(`hold ${holdId}: could not read its booking: ${String(e)}`);
      throw bookingUnavailable(
        'The booking store does not answer; nothing was changed and the hold is still yours. Try again',
      );
    }
  }

  @DistributedLock(SEAT_LOCK)
  private async lockedConfirm(
    _eventId: string,
    _seatIds: string[],
    read: HoldRecord,
    orderId: string,
  ): Promise<ConfirmResult> {
    const lock = currentLock();
    // An attempt an earlier call left CONFIRMING is decided first; with the seat lock held, no live
    // confirm is writing it, so what PostgreSQL says about it is final.
    if (read.status === 'CONFIRMING') {
      const earlier = await this.settleUnderLock(read);
      if (earlier.booking) {
        return this.replay(earlier.booking, orderId);
      }
    }
    let begun = await this.begin(lock, read, orderId);
    if (!begun.ok && begun.error === 'HOLD_NOT_ACTIVE' && begun.hold?.status === 'CONFIRMING') {
      // it became CONFIRMING after our read (a confirm that has since lost its lock): decide, then retry
      const earlier = await this.settleUnderLock(begun.hold);
      if (earlier.booking) {
        return this.replay(earlier.booking, orderId);
      }
      begun = await this.begin(lock, read, orderId);
    }
    if (!begun.ok) {
      switch (begun.error) {
        case 'HOLD_NOT_FOUND':
          throw holdNotFound(read.holdId);
        case 'HOLD_EXPIRED':
          throw holdExpired();
        case 'HOLD_NOT_ACTIVE':
          throw holdNotActive(begun.hold);
        case 'SEATS_LOST':
          throw seatsLost(begun.lostSeats);
        case 'STALE_FENCING_TOKEN':
          throw staleFence('confirm');
      }
    }
    const attempt = begun.hold;
    // what it sells for is what the attempt began with: its pricing no longer changes while CONFIRMING
    const sale = await this.prices.saleOf(attempt);
    const booked = await this.bookings.book(attempt, orderId, this.writeBudgetMs(lock, attempt), sale);
    return this.afterBooking(attempt, orderId, booked, sale);
  }

  private begin(lock: HeldLock, read: HoldRecord, orderId: string) {
    lock.assertValid(); // a lease that ran out under us: nothing written, answered as BUSY
    return this.store.beginConfirm({
      holdId: read.holdId,
      userId: read.userId,
      orderId,
      fencingToken: lock.fencingToken,
      confirmTimeoutMs: this.config.holds.confirmTimeoutMs,
    });
  }

  /**
   * The booking transaction ends before the seat lock's lease (so no other confirm of this hold runs
   * beside it, and giving the attempt up under the lock is safe) and before the confirm deadline (so
   * the reconciler does not step in while it still runs).
   */
  private writeBudgetMs(lock: HeldLock, attempt: HoldRecord): number {
    const leaseMs = this.seatLock.leaseMs;
    const leaseLeft = lock.acquiredAt + leaseMs - performance.now();
    const deadlineLeft =
      attempt.status === 'CONFIRMING' && attempt.confirmDeadlineMs
        ? attempt.confirmDeadlineMs - attempt.nowMs
        : leaseLeft;
    const margin = Math.min(WRITE_MARGIN_MS, leaseMs / 10);
    return Math.max(1, Math.min(leaseLeft, deadlineLeft) - margin);
  }

  private async afterBooking(
    attempt: HoldRecord,
    orderId: string,
    booked: BookResult,
    sale: PricedSale | null,
  ): Promise<ConfirmResult> {
    if (booked.ok) {
      await this.finishQuietly(booked.booking);
      return { created: true, booking: BookingView.of(booked.booking) };
    }
    switch (booked.reason) {
      case 'HOLD_CONFIRMED':
        return this.replay(booked.existing, orderId);
      case 'ATTEMPT_ABANDONED': {
        // someone decided this attempt before it committed (its marker is in): Redis follows
        const now = await this.settlement.giveUp(attempt);
        throw now.status === 'EXPIRED'
          ? holdExpired()
          : bookingUnavailable('The booking took too long and was given up; nothing was booked. Try again');
      }
      case 'SEATS_BOOKED':
        return this.seatsBookedElsewhere(attempt, booked.seatIds);
      case 'FAILED':
        return this.afterFailure(attempt, orderId, booked);
      case 'PROMO_CODE_UNAVAILABLE':
        return this.promoCodeRefused(attempt, sale!.promo!.code, booked.why);
    }
  }

  /**
   * The hold's promo code could not be counted (used up, disabled, expired): the booking's transaction
   * rolled back, nothing was booked. The attempt is given up at once (we hold the seat lock), so the hold is
   * ACTIVE again with its code: its holder may remove the code and confirm at list prices.
   */
  private async promoCodeRefused(
    attempt: HoldRecord,
    code: string,
    why: Extract<BookResult, { reason: 'PROMO_CODE_UNAVAILABLE' }>['why'],
  ): Promise<never> {
    await this.settleUnderLock(attempt);
    throw promoCodeUnavailable(code, why);
  }

  /**
   * PostgreSQL failed or timed out. Decide this attempt now (we still hold the lock): if the COMMIT did
   * go through, the booking stands (201); otherwise the marker goes in and the hold is ACTIVE again.
   */
  private async afterFailure(
    attempt: HoldRecord,
    orderId: string,
    failed: Extract<BookResult, { reason: 'FAILED' }>,
  ): Promise<ConfirmResult> {
    const what = failed.committed === 'unknown' ? 'COMMIT outcome unknown' : 'not written';
    this.logger.warn(`hold ${attempt.holdId}: booking ${what}: ${String(failed.error)}`);
    let settled: Settled | undefined;
    try {
      settled = await this.settlement.settle(attempt, { seatLockHeld: true, timeoutMs: SETTLE_TIMEOUT_MS });
    } catch (e) {
      this.logger.warn(
        `hold ${attempt.holdId}: attempt left CONFIRMING, PostgreSQL still failing: ${String(e)}`,
      );
    }
    if (settled?.booking) {
      const ours =
        settled.booking.orderId === orderId && settled.booking.fencingToken === attempt.fencingToken;
      return ours
        ? { created: true, booking: BookingView.of(settled.booking) }
        : this.replay(settled.booking, orderId);
    }
    if (settled?.hold.status === 'EXPIRED') {
      throw holdExpired();
    }
    if (settled?.hold.status === 'ACTIVE') {
      throw bookingUnavailable(
        'The booking store failed or timed out; nothing was booked and the hold is still yours. Try again',
      );
    }
    throw bookingUnavailable(
      'The booking store failed or timed out; whether the booking was written is not known yet. Retry with the same orderId',
    );
  }

  /**
   * PostgreSQL has another hold's booking for some of these seats (Redis had lost it). This attempt is
   * given up, Redis is told those seats are BOOKED, and the hold cannot be confirmed whole.
   */
  private async seatsBookedElsewhere(attempt: HoldRecord, seatIds: string[]): Promise<never> {
    this.logger.error(
      `hold ${attempt.holdId}: seats ${seatIds.join(', ')} are booked in PostgreSQL by another hold`,
    );
    await this.settleUnderLock(attempt);
    await this.store.markBooked(attempt.eventId, seatIds);
    throw seatsBooked(seatIds);
  }

  private async settleUnderLock(hold: HoldRecord): Promise<Settled> {
    try {
      return await this.settlement.settle(hold, { seatLockHeld: true, timeoutMs: SETTLE_TIMEOUT_MS });
    } catch (e) {
      this.logger.warn(`hold ${hold.holdId}: could not decide an earlier confirm attempt: ${String(e)}`);
      throw bookingUnavailable(
        'An earlier confirm of this hold is still being decided and the booking store does not answer. Try again',
      );
    }
  }

  /** The hold is booked: the same orderId replays it (and completes Redis if a crash left it behind). */
  private async replay(existing: BookingEntity, orderId: string): Promise<ConfirmResult> {
    if (existing.orderId !== orderId) {
      throw confirmedWithAnotherOrder();
    }
    await this.finishQuietly(existing);
    return { created: false, booking: BookingView.of(existing) };
  }

  /**
   * The booking is committed: a Redis failure now must not fail the request; the next call on the hold
   * or the reconciler finishes it.
   */
  private async finishQuietly(booking: BookingEntity): Promise<void> {
    try {
      await this.settlement.finish(booking.holdId, booking);
    } catch (e) {
      this.logger.warn(
        `hold ${booking.holdId}: booked in PostgreSQL, Redis finish failed (${String(e)}); repaired later`,
      );
    }
  }
}
