import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { currentLock, DistributedLock } from '@app/distributed-lock';
import { BookingEntity } from '@app/database';
import { AuditAction } from '../../audit/audit-action';
import { ActionRefused, AuditedActions } from '../../audit/audited-actions';
import { cancelBookingRow } from '../../audit/prepared-changes';
import { AuthUser } from '../../auth/auth-user';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import { HoldStore, StaffHoldStore } from '../../hold-store';
import { bookingPrice } from '../../pricing/priced-sale';
import { ConfirmSettlement } from '../confirm/confirm-settlement';
import { bookingUnavailable, busy, lockLostAsBusy, staleFence } from '../hold-errors';
import { lockedSeatsOf, SEAT_LOCK, SeatLockHost, SeatLockSettings } from '../seat-lock';
import { CancelledBookingView } from './dto/cancelled-booking.view';

/** How long deciding a confirm attempt the cancel meets may wait for PostgreSQL (as force release's). */
const SETTLE_TIMEOUT_MS = 1000;

export const bookingNotFound = (bookingId: string) =>
  new DomainError(ErrorCode.BOOKING_NOT_FOUND, `Booking ${bookingId} does not exist in this event`);

/**
 * An admin cancels a booking: its seats become available again, and a BookingCancelled goes out through
 * the shard's outbox (the relay publishes it on the seat topic, where a waiting list would take it up).
 * The booking (PostgreSQL) and its seats (Redis) change as one audited action (AuditedActions):
 *   1. in one PostgreSQL transaction: the audit entry PENDING, the booking CANCELLED, its booking_seats
 *      rows deleted. A booking cancelled already refuses here (409), with nothing written;
 *   2. one Redis script frees the seats, writes the BookingCancelled record and marks the action applied;
 *   3. the entry becomes DONE. If the action is given up instead (Redis failed before step 2 took), the
 *      entry's deletion takes step 1 back: the booking is CONFIRMED again with its seats, which Redis kept.
 * So PostgreSQL never shows the seats booked while Redis sells them, and the seats are never freed while
 * the booking stands. All under the seats' lock: a confirm of the booking's hold left CONFIRMING (its
 * PostgreSQL row committed, Redis not told) is decided first, so it cannot later take the seats back.
 */
@Injectable()
export class BookingCancelService implements SeatLockHost {
  private readonly logger = new Logger('StaffBookings');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly catalogue: CatalogueService,
    private readonly store: HoldStore,
    private readonly staff: StaffHoldStore,
    private readonly settlement: ConfirmSettlement,
    private readonly audited: AuditedActions,
    /** Read by SEAT_LOCK (seat-lock.ts) on each locked call. */
    readonly seatLock: SeatLockSettings,
  ) {}

  async cancel(
    actor: AuthUser,
    eventId: string,
    bookingId: string,
    reason: string,
  ): Promise<CancelledBookingView> {
    await this.catalogue.requireSeats(eventId);
    // an earlier cancel left half-way (its request died) is finished or taken back before anything else
    await this.audited.settle(eventId);
    const booking = await this.db
      .getRepository(BookingEntity)
      .findOne({ where: { id: bookingId, eventId } })
      .catch((e: unknown) => {
        this.logger.warn(`booking ${bookingId} not readable: ${String(e)}`);
        throw bookingUnavailable('The booking store does not answer; nothing was done. Try again');
      });
    if (!booking || booking.status === 'ABANDONED') {
      throw bookingNotFound(bookingId);
    }
    // a booking read CANCELLED is refused under the seats' lock (cancelBookingRow): a cancel left PENDING
    // by a request that failed is decided there first, and may turn out given up, the booking CONFIRMED
    try {
      await this.lockedCancel(eventId, lockedSeatsOf(booking), booking, actor, reason);
    } catch (e) {
      throw lockLostAsBusy(e);
    }
    this.logger.log({ msg: 'booking cancelled', bookingId, actor: actor.id, customer: booking.userId });
    return {
      bookingId,
      holdId: booking.holdId,
      orderId: booking.orderId!,
      eventId,
      seatIds: booking.seatIds,
      ...(booking.places ? { places: booking.places } : {}),
      status: 'CANCELLED',
      userId: booking.userId,
      bookedAt: booking.createdAt.toISOString(),
      ...bookingPrice(booking),
    };
  }

  @DistributedLock(SEAT_LOCK)
  private async lockedCancel(
    eventId: string,
    _seatIds: string[],
    booking: BookingEntity,
    actor: AuthUser,
    reason: string,
  ): Promise<void> {
    const lock = currentLock(); // here, before any await (see currentLock)
    const hold = await this.store.getHold(booking.holdId);
    if (hold?.status === 'CONFIRMING') {
      try {
        await this.settlement.settle(hold, { seatLockHeld: true, timeoutMs: SETTLE_TIMEOUT_MS });
      } catch (e) {
        this.logger.warn(`hold ${hold.holdId}: confirm outcome not readable from PostgreSQL: ${String(e)}`);
        throw bookingUnavailable(
          'The booking is still being confirmed and the booking store does not answer',
        );
      }
    }
    const record = {
      eventId,
      actor: actor.id,
      action: AuditAction.BOOKING_CANCEL,
      target: booking.id,
      reason,
      detail: {
        bookingId: booking.id,
        orderId: booking.orderId,
        customer: booking.userId,
        seatIds: booking.seatIds,
        ...(booking.places ? { places: booking.places } : {}),
        // the amount it was sold for, as the cancel answers it (none for an unpriced booking)
        ...(booking.total === null ? {} : { total: booking.total, currency: booking.currency }),
      },
    };
    await this.audited.run(
      record,
      async (_id, action) => {
        lock.assertValid();
        const r = await this.staff.cancelBooking({
          eventId,
          bookingId: booking.id,
          holdId: booking.holdId,
          orderId: booking.orderId!,
          userId: booking.userId,
          seatIds: booking.seatIds,
          places: booking.places ?? [],
          fencingToken: lock.fencingToken,
          action,
        });
        if (r.ok) {
          return r.freed;
        }
        throw new ActionRefused(
          r.error === 'STALE_FENCING_TOKEN'
            ? staleFence('release')
            : busy('The cancellation took too long and was given up; nothing was done. Try again'),
        );
      },
      cancelBookingRow(booking.id, booking.seatIds),
    );
  }
}
