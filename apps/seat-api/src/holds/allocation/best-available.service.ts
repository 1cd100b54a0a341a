import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AuthUser } from '../../auth/auth-user';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { EventPolicy } from '../../catalogue/policy/event-policy';
import { eventNotFound, EventPolicyService } from '../../catalogue/policy/event-policy.service';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import {
  AllocationStore,
  BestAvailableResult,
  HoldIds,
  HoldRecord,
  HoldStore,
  layoutRows,
  StoreResult,
} from '../../hold-store';
import { holdLimitExceeded, rejectionReason } from '../hold-errors';
import { HoldView } from '../hold.view';
import { holdsCreated, holdsRejected } from '../holds.metrics';
import { HoldsService } from '../holds.service';
import { UnansweredHolds } from '../unanswered-holds';
import { BestAvailableDto } from './best-available.dto';

/** Holds sent again under a reloaded policy when the event's settings changed meanwhile, at most. */
const POLICY_ATTEMPTS = 3;

/**
 * A hold that names what it wants (bestAvailable) instead of which seats: the hold store picks the seats
 * and holds them in one script on the event's shard (AllocationStore). The hold it makes is an ordinary
 * hold: extend, release, confirm, expiry and the seat map treat it as any other.
 *
 * No seat lock is taken here: the seats are unknown until the script picks them, and the script itself
 * skips seats under a seat lock and draws its own fencing token (lua/best-available.lua says why). So
 * many requests at once are answered by Redis one after the other, each a hold or a 409: never a 503.
 */
@Injectable()
export class BestAvailableService implements OnModuleDestroy {
  /**
   * Holds Redis may have made for requests answered 503 (their reply lost): released by id as their owner
   * would (HoldsService.releaseForCancel: seat lock, fencing), the seats read from the hold itself, since
   * the request never learnt them. The read goes out after the lost script, on its connection and slot.
   */
  private readonly unanswered = new UnansweredHolds(async (h): Promise<StoreResult<string>> => {
    const made = await this.holdStore.getHold(h.holdId);
    if (!made) {
      return { ok: false, error: 'HOLD_NOT_FOUND' };
    }
    const outcome = await this.holds.releaseForCancel({ ...h, seatIds: made.seatIds });
    return outcome === 'booked' ? { ok: false, error: 'HOLD_CONFIRMED' } : { ok: true, hold: made };
  });

  constructor(
    private readonly store: AllocationStore,
    private readonly holdStore: HoldStore,
    private readonly catalogue: CatalogueService,
    private readonly policies: EventPolicyService,
    private readonly holds: HoldsService,
  ) {}

  async hold(
    user: AuthUser,
    eventId: string,
    want: BestAvailableDto,
    ttlSeconds?: number,
  ): Promise<HoldView> {
    try {
      const hold = await this.create(user, eventId, want, ttlSeconds);
      holdsCreated.inc();
      return HoldView.of(hold);
    } catch (e) {
      holdsRejected.inc({ reason: rejectionReason(e) });
      throw e;
    }
  }

  onModuleDestroy(): void {
    this.unanswered.close();
  }

  private async create(
    user: AuthUser,
    eventId: string,
    want: BestAvailableDto,
    ttlSeconds?: number,
  ): Promise<HoldRecord> {
    const seats = await this.catalogue.requireSeatsToHold(eventId);
    unknownFilter(seats.values(), want);
    let policy = await this.policies.forHold(eventId);
    for (let attempt = 1; ; attempt++) {
      if (!policy) {
        throw eventNotFound(eventId);
      }
      const refusal = this.holds.refusalUnder(policy, want.quantity, ttlSeconds);
      if (refusal) {
        const current = await this.policies.confirmed(policy);
        if (current === policy || attempt >= POLICY_ATTEMPTS) {
          throw refusal;
        }
        policy = current;
        continue;
      }
      const { orphanRule } = policy;
      const layout = () => ({ rows: layoutRows(seats.values()), orphanRule });
      const sent = request(user, eventId, want, policy, ttlSeconds);
      const unanswered = { ...sent, seatIds: [], untilMs: Date.now() + sent.ttlMs };
      const r = await this.unanswered.run(unanswered, () => this.store.bestAvailable(sent, layout));
      if (r.ok) {
        return r.hold;
      }
      if (r.error !== 'POLICY_CHANGED') {
        throw refusalOf(eventId, r, want.quantity);
      }
      if (attempt >= POLICY_ATTEMPTS) {
        throw new DomainError(
          ErrorCode.BUSY,
          "The event's settings are being changed right now; try again shortly",
        );
      }
      policy = await this.policies.reload(eventId);
    }
  }
}

function request(
  user: AuthUser,
  eventId: string,
  want: BestAvailableDto,
  policy: EventPolicy,
  ttlSeconds?: number,
) {
  const { limits } = policy;
  const ttl = ttlSeconds ?? limits.defaultHoldTtlSeconds;
  return {
    eventId,
    holdId: HoldIds.generate(eventId),
    userId: user.id,
    quantity: want.quantity,
    section: want.section,
    category: want.category,
    accessible: want.accessible,
    accessibleWhenOthersGone: policy.accessibleSeatsForAll === 'when-others-gone',
    ttlMs: ttl * 1000,
    maxLifetimeMs: limits.maxHoldLifetimeSeconds * 1000,
    maxSeatsPerUser: limits.maxSeatsPerUser,
    policyVersion: policy.version,
    maxExtensions: limits.maxExtensions,
    maxTtlMs: limits.maxHoldTtlSeconds * 1000,
  };
}

/** A section or category the event does not have is the request's mistake (400), not a shortage. */
function unknownFilter(
  seats: Iterable<{ section: string; category: string; access?: string | null }>,
  want: BestAvailableDto,
): void {
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

function refusalOf(
  eventId: string,
  r: Exclude<BestAvailableResult, { ok: true }>,
  quantity: number,
): DomainError {
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
      throw new Error('unreachable: a policy change is sent again');
  }
}
