import { Injectable, Logger } from '@nestjs/common';
import { AuthUser } from '../auth/auth-user';
import { hasRole, Role } from '../auth/roles';
import { BookingRepository } from './booking.repository';
import { ConfirmSettlement } from './confirm/confirm-settlement';
import { holdNotFound } from './hold-errors';
import { HoldView } from './hold.view';
import { HoldIds, HoldRecord, HoldStore } from '../hold-store';
import { HoldPrices } from '../pricing/hold-prices.service';
import { bookingPrice } from '../pricing/priced-sale';

/** How long reading a hold may wait for PostgreSQL to tell what became of a CONFIRMING attempt. */
const READ_SETTLE_TIMEOUT_MS = 1000;

/**
 * Reading a hold, without the seat lock: what Redis has, a CONFIRMING attempt decided from PostgreSQL
 * on the way (ConfirmSettlement), and a booking once Redis has forgotten the hold.
 */
@Injectable()
export class HoldReads {
  private readonly logger = new Logger('Holds');

  constructor(
    private readonly store: HoldStore,
    private readonly bookings: BookingRepository,
    private readonly settlement: ConfirmSettlement,
    private readonly prices: HoldPrices,
  ) {}

  /** The caller's own hold; staff (agent, admin) read anyone's. */
  async get(user: AuthUser, holdId: string): Promise<HoldView> {
    const staff = hasRole(user.roles, Role.AGENT);
    const hold = await this.store.getHold(holdId);
    if (hold && (hold.userId === user.id || staff)) {
      const read = await this.settledForRead(hold);
      return HoldView.of(read, await this.prices.saleOf(read));
    }
    if (!hold) {
      // past the retention period Redis forgot the hold; a booking still tells what became of it
      const booked = HoldIds.parse(holdId) ? await this.bookings.confirmedHold(holdId) : null;
      if (booked && (booked.hold.userId === user.id || staff)) {
        return Object.assign(HoldView.of(booked.hold), bookingPrice(booked.booking));
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
}
