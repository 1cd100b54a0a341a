import { Injectable } from '@nestjs/common';
import { AuthUser } from '../../auth/auth-user';
import { HoldRecord, HoldStore } from '../../hold-store';
import { HoldPrices } from '../../pricing/hold-prices.service';
import { holdNotPriced } from '../../pricing/pricing-errors';
import { busy, holdNotActive, holdNotFound } from '../hold-errors';
import { HoldView } from '../hold.view';
import { holdChanges } from '../holds.metrics';

/** A change of a hold's pricing sent again after another change of it came first, at most this often. */
const ATTEMPTS = 5;

/**
 * What a priced hold is sold as, changed by its holder while it is ACTIVE: a line's ticket type, its promo
 * code (applied, replaced or removed). Re-priced under the hold's own price-list version. Each change is one
 * write of the hold's record that takes effect only if the record is as it was read (lua/set-hold-pricing.lua):
 * changes racing on one hold are made one after the other, none lost; no seat lock is taken, as no seat's
 * state changes, and a confirm books what the hold carried when it began.
 */
@Injectable()
export class HoldLines {
  constructor(
    private readonly store: HoldStore,
    private readonly prices: HoldPrices,
  ) {}

  /** Seat `seatId` of the hold sold as `ticketType`. */
  changeTicketType(user: AuthUser, holdId: string, seatId: string, ticketType: string): Promise<HoldView> {
    return this.reprice(user, holdId, 'ticket-type', (hold) =>
      this.prices.withTicketType(hold, seatId, ticketType),
    );
  }

  /** The hold carries promo code `code` (null: none). */
  setPromoCode(user: AuthUser, holdId: string, code: string | null): Promise<HoldView> {
    return this.reprice(user, holdId, code === null ? 'promo-remove' : 'promo-apply', (hold) =>
      this.prices.withPromoCode(hold, code),
    );
  }

  private async reprice(
    user: AuthUser,
    holdId: string,
    action: string,
    next: (hold: HoldRecord) => Promise<string | null>,
  ): Promise<HoldView> {
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const hold = await this.store.getHold(holdId);
      if (!hold || hold.userId !== user.id) {
        throw holdNotFound(holdId);
      }
      if (hold.status !== 'ACTIVE') {
        throw holdNotActive(hold);
      }
      const pricing = await next(hold);
      if (pricing === null) {
        throw holdNotPriced(holdId);
      }
      const r = await this.store.setPricing({
        holdId,
        userId: user.id,
        expected: hold.pricing ?? '',
        pricing,
      });
      holdChanges.inc({ action, outcome: r.ok ? 'ok' : r.error });
      if (r.ok) {
        return HoldView.of(r.hold, await this.prices.saleOf(r.hold));
      }
      switch (r.error) {
        case 'HOLD_NOT_FOUND':
          throw holdNotFound(holdId);
        case 'HOLD_NOT_ACTIVE':
          throw holdNotActive(r.hold);
        case 'PRICING_CHANGED':
          continue;
      }
    }
    throw busy("The hold's lines are being changed by other requests right now; try again");
  }
}
