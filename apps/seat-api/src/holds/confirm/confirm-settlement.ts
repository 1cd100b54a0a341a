import { Injectable, Logger } from '@nestjs/common';
import { BookingEntity } from '@app/database';
import { counter } from '@app/observability';
import { BookingRepository } from '../booking.repository';
import { HoldRecord, HoldStore } from '../../hold-store';
import { bookingPrice } from '../../pricing/priced-sale';

const settled = counter(
  'seat_confirm_settled_total',
  'CONFIRMING holds decided from PostgreSQL (by the reconciler or a later call on the hold), by outcome',
  ['outcome'],
);

/** A CONFIRMING hold after settlement, and the booking when PostgreSQL has one. */
export interface Settled {
  hold: HoldRecord;
  booking: BookingEntity | null;
}

/**
 * The one rule that ends a CONFIRMING state. A confirm attempt (the fencing token its beginConfirm stored)
 * moves the hold to CONFIRMING in Redis, then writes the booking in PostgreSQL. When the attempt cannot
 * finish by itself (PostgreSQL failed or timed out, the process died before or after COMMIT), Redis
 * leaves CONFIRMING only after PostgreSQL has decided that attempt for good:
 *
 *   - PostgreSQL has the hold's CONFIRMED booking  -> FINISH_CONFIRM: seats BOOKED, hold CONFIRMED;
 *   - otherwise the attempt's ABANDONED marker is inserted first (a late COMMIT of that attempt then
 *     loses on the (hold_id, fencing_token) key) -> ABANDON_CONFIRM for that attempt only: the hold is
 *     ACTIVE again (or EXPIRED, with its SeatExpired records, if its time ran out meanwhile) and can be
 *     confirmed again by a new attempt.
 *
 * So at every moment both stores tell one story: CONFIRMED in both, or no booking in PostgreSQL and a
 * hold that GET, extend, release, confirm and the seat map all treat alike. The marker is per attempt,
 * not per hold: giving up one slow attempt never makes the hold unconfirmable.
 *
 * Who may give an attempt up: whoever holds the hold's seat lock (a live confirm keeps its PostgreSQL
 * work within its lease, so nobody else is writing that attempt), or anyone once the attempt's confirm
 * deadline passed (the reconciler, a GET). Before the deadline and without the lock, only a committed
 * booking decides. Correctness does not rest on that timing: the marker and the attempt-checked Redis
 * script make any late writer lose; the lock and the deadline only keep us from killing a live confirm.
 */
@Injectable()
export class ConfirmSettlement {
  private readonly logger = new Logger('ConfirmSettlement');

  constructor(
    private readonly store: HoldStore,
    private readonly bookings: BookingRepository,
  ) {}

  /** Decides `hold` if it is CONFIRMING (see the class comment); other holds come back as they are. */
  async settle(hold: HoldRecord, opts: { seatLockHeld: boolean; timeoutMs: number }): Promise<Settled> {
    if (hold.status !== 'CONFIRMING') {
      return { hold, booking: null };
    }
    const pastDeadline = (hold.confirmDeadlineMs ?? 0) <= hold.nowMs;
    if (!opts.seatLockHeld && !pastDeadline) {
      // a live confirm may still be writing this attempt: only a committed booking decides now
      const booking = await this.bookings.findConfirmed(hold.holdId, opts.timeoutMs);
      return booking ? this.finishSettled(hold, booking) : { hold, booking: null };
    }
    const decision = await this.bookings.decideAttempt(hold, opts.timeoutMs);
    if (decision.status === 'CONFIRMED') {
      return this.finishSettled(hold, decision.booking);
    }
    return { hold: await this.giveUp(hold), booking: null };
  }

  /**
   * Redis follows a committed booking: seats BOOKED, hold CONFIRMED. No seat lock needed: PostgreSQL
   * decided, and the script only finishes a hold CONFIRMING with this booking's orderId. Null when Redis
   * no longer has the hold (retention passed): PostgreSQL alone tells its story then.
   */
  async finish(holdId: string, booking: BookingEntity): Promise<HoldRecord | null> {
    // its HoldConfirmed tells what the booking was sold for ('' for an unpriced one)
    const price = bookingPrice(booking);
    const r = await this.store.finishConfirm({
      holdId,
      orderId: booking.orderId!,
      price: price.total === undefined ? '' : JSON.stringify(price),
    });
    if (r.ok) {
      return r.hold;
    }
    if (r.error !== 'HOLD_NOT_FOUND' && r.hold?.status !== 'CONFIRMED') {
      // only after Redis lost data: PostgreSQL booked the hold with another orderId than Redis knows
      this.logger.error(
        `hold ${holdId}: booked in PostgreSQL (order ${booking.orderId}) but Redis refused to finish (${r.error}, ${r.hold?.status})`,
      );
    }
    return r.hold ?? null;
  }

  private async finishSettled(hold: HoldRecord, booking: BookingEntity): Promise<Settled> {
    const finished = await this.finish(hold.holdId, booking);
    if (finished?.status === 'CONFIRMED') {
      settled.inc({ outcome: 'finished' });
    }
    return { hold: finished ?? hold, booking };
  }

  /**
   * Redis gives up this attempt, after PostgreSQL recorded that it never committed. The script checks
   * the attempt, so a newer attempt begun meanwhile is left alone (HOLD_NOT_ACTIVE, nothing written).
   */
  async giveUp(hold: HoldRecord): Promise<HoldRecord> {
    const r = await this.store.abandonConfirm({ holdId: hold.holdId, fencingToken: hold.fencingToken });
    if (r.ok) {
      settled.inc({ outcome: 'given_up' });
      this.logger.warn(`hold ${hold.holdId}: confirm attempt ${hold.fencingToken} never committed; given up`);
    }
    return r.hold ?? hold;
  }
}
