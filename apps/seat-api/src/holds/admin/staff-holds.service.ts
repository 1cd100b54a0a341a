import { Injectable, Logger } from '@nestjs/common';
import { currentLock, DistributedLock } from '@app/distributed-lock';
import { AuditAction } from '../../audit/audit-action';
import { ActionRefused, AuditedActions } from '../../audit/audited-actions';
import { AuthUser } from '../../auth/auth-user';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { HoldCursor, HoldRecord, HoldStore, PlaceCount, StaffAction, StaffHoldStore } from '../../hold-store';
import { ConfirmSettlement } from '../confirm/confirm-settlement';
import {
  bookingUnavailable,
  busy,
  holdConfirmed,
  holdNotActive,
  holdNotFound,
  lockLostAsBusy,
  staleFence,
} from '../hold-errors';
import { HoldView } from '../hold.view';
import { holdChanges } from '../holds.metrics';
import { HoldsService } from '../holds.service';
import { lockedSeatsOf, SEAT_LOCK, SeatLockHost, SeatLockSettings } from '../seat-lock';
import { HoldPrices } from '../../pricing/hold-prices.service';
import { HoldsPageView } from './dto/holds-page.view';
import { ListHoldsQuery } from './dto/list-holds.query';

/** How long deciding a confirm attempt a force release meets may wait for PostgreSQL (as confirm's). */
const SETTLE_TIMEOUT_MS = 1000;

/**
 * What staff do to holds: list an event's holds, release any hold. A release is an audited action
 * (AuditedActions: its entry and its change commit together or not at all) under the seat lock, like a
 * customer's release.
 */
@Injectable()
export class StaffHoldsService implements SeatLockHost {
  private readonly logger = new Logger('StaffHolds');

  constructor(
    private readonly store: HoldStore,
    private readonly staff: StaffHoldStore,
    private readonly catalogue: CatalogueService,
    private readonly settlement: ConfirmSettlement,
    private readonly audited: AuditedActions,
    private readonly holds: HoldsService,
    /** Read by SEAT_LOCK (seat-lock.ts) on each locked call. */
    readonly seatLock: SeatLockSettings,
    private readonly prices: HoldPrices,
  ) {}

  async list(eventId: string, q: ListHoldsQuery): Promise<HoldsPageView> {
    await this.catalogue.requireSeats(eventId);
    const page = await this.staff.listHolds(eventId, {
      from: parseCursor(q.cursor),
      limit: q.limit,
      userId: q.userId,
      status: q.status,
    });
    return {
      eventId,
      items: await Promise.all(page.holds.map(async (h) => HoldView.of(h, await this.prices.saleOf(h)))),
      nextCursor: page.next && formatCursor(page.next),
    };
  }

  /**
   * A hold for `customerId`, made by `actor` as an audited action: the customer's own hold in every way
   * (their limits and the event's policy apply, they read, extend, release and confirm it with their token);
   * its audit entry names the agent, the customer and the seats.
   */
  async holdFor(
    actor: AuthUser,
    eventId: string,
    customerId: string,
    seatIds: string[],
    ttlSeconds?: number,
    places: PlaceCount[] = [],
  ): Promise<HoldView> {
    const customer: AuthUser = { id: customerId, roles: [] };
    const held = await this.holds.hold(customer, eventId, { seatIds, places }, ttlSeconds, {
      staff: (holdId, create) =>
        this.audited.run(
          {
            eventId,
            actor: actor.id,
            action: AuditAction.HOLD_ON_BEHALF,
            target: holdId,
            detail: {
              customerId,
              seatIds: [...seatIds].sort(),
              ...(places.length > 0 ? { places } : {}),
            },
          },
          create,
        ),
    });
    this.logger.log({ msg: 'hold made on behalf', holdId: held.holdId, actor: actor.id, customerId });
    return held;
  }

  /** Releases any live hold (`reason` goes to the audit). The hold as the release left it. */
  async forceRelease(actor: AuthUser, holdId: string, reason: string): Promise<HoldView> {
    const hold = await this.store.getHold(holdId);
    if (!hold) {
      throw holdNotFound(holdId);
    }
    // refused before anything is recorded when it is plain from the read (the script checks again)
    if (hold.status === 'CONFIRMED') {
      throw holdConfirmed();
    }
    if (hold.status !== 'ACTIVE' && hold.status !== 'CONFIRMING') {
      throw holdNotActive(hold);
    }
    const record = {
      eventId: hold.eventId,
      actor: actor.id,
      action: AuditAction.HOLD_FORCE_RELEASE,
      target: holdId,
      reason,
      detail: { holder: hold.userId, seatIds: hold.seatIds },
    };
    try {
      const released = await this.audited.run(record, (_id, action) =>
        this.lockedForceRelease(hold.eventId, lockedSeatsOf(hold), hold, action),
      );
      holdChanges.inc({ action: 'force-release', outcome: 'ok' });
      this.logger.log({ msg: 'hold force-released', holdId, actor: actor.id, holder: hold.userId });
      return released;
    } catch (e) {
      holdChanges.inc({ action: 'force-release', outcome: 'refused' });
      throw lockLostAsBusy(e);
    }
  }

  @DistributedLock(SEAT_LOCK)
  private async lockedForceRelease(
    _eventId: string,
    _seatIds: string[],
    read: HoldRecord,
    action: StaffAction,
  ): Promise<HoldView> {
    const lock = currentLock(); // here, before any await (see currentLock)
    const release = () => {
      lock.assertValid();
      return this.staff.forceRelease({ holdId: read.holdId, fencingToken: lock.fencingToken, action });
    };
    let r = await release();
    if (!r.ok && r.error === 'HOLD_CONFIRMED' && r.hold?.status === 'CONFIRMING') {
      // a confirm that failed or died left it so; with the seat lock held no live confirm is writing it:
      // PostgreSQL decides it (booked: refused as CONFIRMED; given up: ACTIVE again, released below)
      try {
        await this.settlement.settle(r.hold, { seatLockHeld: true, timeoutMs: SETTLE_TIMEOUT_MS });
      } catch (e) {
        this.logger.warn(`hold ${read.holdId}: confirm outcome not readable from PostgreSQL: ${String(e)}`);
        throw new ActionRefused(
          bookingUnavailable(
            'A confirm of this hold is still being decided and the booking store does not answer',
          ),
        );
      }
      r = await release();
    }
    if (r.ok) {
      return HoldView.of(r.hold, await this.prices.saleOf(r.hold));
    }
    switch (r.error) {
      case 'HOLD_NOT_FOUND':
        throw new ActionRefused(holdNotFound(read.holdId));
      case 'HOLD_CONFIRMED':
        throw new ActionRefused(holdConfirmed());
      case 'HOLD_NOT_ACTIVE':
        throw new ActionRefused(holdNotActive(r.hold));
      case 'STALE_FENCING_TOKEN':
        throw new ActionRefused(staleFence('release'));
      case 'ACTION_CANCELLED':
        // this request took so long that the audit gave its action up (AuditedActions.settle)
        throw new ActionRefused(
          busy('The release took too long and was given up; nothing was done. Try again'),
        );
    }
  }
}

/** `<bucket>` or `<bucket>.<hid>`: where the next page starts (the hid is the last one listed). */
function formatCursor(c: HoldCursor): string {
  return c.afterHid ? `${c.bucket}.${c.afterHid}` : String(c.bucket);
}

function parseCursor(cursor: string | undefined): HoldCursor | null {
  if (!cursor) {
    return null;
  }
  const [bucket, afterHid = ''] = cursor.split('.');
  return { bucket: Number(bucket), afterHid };
}
