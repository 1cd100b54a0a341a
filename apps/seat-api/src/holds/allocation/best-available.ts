import { Injectable } from '@nestjs/common';
import { EventPolicy } from '../../catalogue/policy/event-policy';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import {
  AllocationStore,
  BestAvailableResult,
  HoldRecord,
  HoldTerms,
  layoutRows,
  LayoutSeat,
} from '../../hold-store';
import { holdLimitExceeded } from '../hold-errors';
import { queueRefused } from '../../queue/queue-errors';
import { PolicyChanged } from '../hold-policy';
import { BestAvailableDto } from './best-available.dto';

/**
 * A hold that names what it wants (bestAvailable) instead of which seats: the hold store picks the seats
 * and holds them in one script on the event's shard (AllocationStore, lua/best-available.lua). The hold
 * it makes is an ordinary hold: extend, release, confirm, expiry and the seat map treat it as any other.
 *
 * No seat lock is taken: the seats are unknown until the script picks them, and the script itself skips
 * seats under a seat lock and draws its own fencing token (lua/best-available.lua says why). So many
 * requests at once are answered by Redis one after the other, each a hold or a 409: never a 503.
 */
@Injectable()
export class BestAvailable {
  constructor(private readonly store: AllocationStore) {}

  /** A section or category the event does not have is the request's mistake (400), not a shortage. */
  assertFits(seats: Iterable<LayoutSeat>, want: BestAvailableDto): void {
    if (want.section === undefined && want.category === undefined && !want.accessible) {
      return;
    }
    let section = want.section === undefined;
    let category = want.category === undefined;
    let accessible = !want.accessible;
    for (const s of seats) {
      section ||= s.section === want.section;
      category ||= s.category === want.category;
      accessible ||= s.access === 'accessible';
      if (section && category && accessible) {
        return;
      }
    }
    const details = [
      ...(section ? [] : [{ field: 'bestAvailable.section', message: 'the event has no such section' }]),
      ...(category ? [] : [{ field: 'bestAvailable.category', message: 'the event has no such category' }]),
      ...(accessible
        ? []
        : [{ field: 'bestAvailable.accessible', message: 'the event has no wheelchair places' }]),
    ];
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'No such seats in this event', { details });
  }

  /** Picks and holds; the event's seats are read only when Redis has no free-seat index of it yet. */
  async hold(
    p: { eventId: string; holdId: string; userId: string; want: BestAvailableDto },
    terms: HoldTerms,
    policy: EventPolicy,
    seats: () => Iterable<LayoutSeat>,
  ): Promise<HoldRecord> {
    const { eventId, want } = p;
    const r = await this.store.bestAvailable(
      {
        ...terms,
        eventId,
        holdId: p.holdId,
        userId: p.userId,
        quantity: want.quantity,
        section: want.section,
        category: want.category,
        accessible: want.accessible,
        accessibleWhenOthersGone: policy.accessibleSeatsForAll === 'when-others-gone',
      },
      () => ({ rows: layoutRows(seats()), orphanRule: policy.orphanRule }),
    );
    if (r.ok) {
      return r.hold;
    }
    throw refusalOf(eventId, r, want.quantity);
  }
}

function refusalOf(eventId: string, r: Exclude<BestAvailableResult, { ok: true }>, quantity: number): Error {
  switch (r.error) {
    case 'SEATS_UNAVAILABLE':
      return new DomainError(
        ErrorCode.SEATS_UNAVAILABLE,
        r.reason === 'SOLD_OUT'
          ? 'No seat matching the request is available'
          : `No ${quantity} available seats side by side in one row`,
        // splitAvailable: the same number of seats would be found apart (a hold by seatIds may take them)
        { details: [{ reason: r.reason, splitAvailable: r.free >= quantity }] },
      );
    case 'HOLD_LIMIT_EXCEEDED':
      return holdLimitExceeded(r.heldSeats, r.limit);
    case 'EVENT_ENDED':
      return new DomainError(
        ErrorCode.EVENT_ENDED,
        `Event ${eventId} is over: its seats can no longer be held`,
      );
    case 'POLICY_CHANGED':
      return new PolicyChanged();
    case 'QUEUE_REQUIRED':
    case 'ADMISSION_INVALID':
      return queueRefused(eventId, r);
  }
}
