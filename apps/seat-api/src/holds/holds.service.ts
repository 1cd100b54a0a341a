import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { ActionRefused } from '../audit/audited-actions';
import { AuthUser } from '../auth/auth-user';
import { CatalogueService } from '../catalogue/catalogue.service';
import { ConfirmHoldUseCase, ConfirmResult } from './confirm/confirm-hold.use-case';
import {
  areasNotFound,
  busyIfLockLost,
  extensionLimitReached,
  holdConfirmed,
  holdNotActive,
  holdNotFound,
  lifetimeExceeded,
  lockLostAsBusy,
  rejectionReason,
  seatsLost,
  seatsNotFound,
  seatsUnavailable,
  staleFence,
  ttlOutOfRange,
} from './hold-errors';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { HoldView } from './hold.view';
import { holdChanges, holdPrechecks, holdsCreated, holdsRejected } from './holds.metrics';
import { SeatDemand } from './seat-demand';
import { LockedHoldChanges } from './locked-hold-changes';
import { HoldPolicy, PolicyChanged } from './hold-policy';
import { BestAvailable } from './allocation/best-available';
import { BestAvailableDto } from './allocation/best-available.dto';
import {
  HoldIds,
  HoldRecord,
  HoldStore,
  HoldTerms,
  PlaceCount,
  StaffAction,
  StoreResult,
} from '../hold-store';
import { HoldPrices, placeItems } from '../pricing/hold-prices.service';
import { hasRole, Role } from '../auth/roles';
import { AdmissionPasses } from '../queue/admission-passes';
import { queueRequired } from '../queue/queue-errors';
import { QueueStatusCache } from '../queue/queue-status.cache';
import { UnansweredHold, UnansweredHolds } from './unanswered-holds';

import { lockedSeatsOf } from './seat-lock';

export { seatLockKeys } from './seat-lock';

/** A ticket type a new hold asks for one of its seats ('' for its category's default), and where it asks. */
export interface WantedType {
  ticketType: string;
  /** The request's field naming it (`seats[2].ticketType`), for a refusal's `errors`. */
  field: string;
}

/**
 * What a new hold asks for: the seats it names, all or none, or the best available block of a quantity;
 * on a priced show, maybe the ticket type of each (in seatIds' order, or in the order best available picks
 * seats; left out: each category's default) and a promo code.
 */
export type HoldWanted = (
  | {
      seatIds: string[];
      places?: PlaceCount[];
      /** The ticket type of each place, in the order of `places` (ticketTypes counts): '' its default. */
      placeTicketTypes?: WantedType[];
    }
  | { bestAvailable: BestAvailableDto }
) & {
  ticketTypes?: readonly WantedType[];
  promoCode?: string;
};

/**
 * How a hold made by staff on a customer's behalf is sent (holds/admin): as one audited action
 * (AuditedActions.run), which `create` hands to the hold script. `create` throws ActionRefused for a
 * refusal (nothing was written); anything else leaves open whether the hold was made.
 */
export type StaffHoldRun = (
  holdId: string,
  create: (actionId: string, action: StaffAction) => Promise<HoldRecord>,
) => Promise<HoldRecord>;

/**
 * Hold, extend, release (confirm: confirm/confirm-hold.use-case.ts). A new hold, of seats named or the
 * best available ones, is made under the event's policy (HoldPolicy) by one hold script. Each change of
 * named seats locks the seats it touches (all at once, briefly; the locked sections are
 * LockedHoldChanges), checks right before its store write that the lock is still ours
 * (HeldLock.assertValid: a lease lost is answered 503 BUSY, nothing written), and hands the lock's
 * fencing token to the store, which refuses writes from a holder that lost its lock.
 *
 * A hold a confirm left CONFIRMING (PostgreSQL failed or timed out, or the process died) is decided from
 * PostgreSQL by whichever call meets it first (ConfirmSettlement), so GET (HoldReads), extend, release
 * and confirm agree with PostgreSQL without waiting for the reconciler.
 */
@Injectable()
export class HoldsService implements OnModuleDestroy {
  /** Holds Redis may have made for requests answered 503: released by id (owner-checked, seat-locked). */
  private readonly unanswered = new UnansweredHolds((h) => this.undo(h));

  constructor(
    private readonly store: HoldStore,
    private readonly catalogue: CatalogueService,
    private readonly confirmHold: ConfirmHoldUseCase,
    private readonly config: AppConfig,
    private readonly locked: LockedHoldChanges,
    private readonly demand: SeatDemand,
    private readonly policy: HoldPolicy,
    private readonly bestAvailable: BestAvailable,
    private readonly passes: AdmissionPasses,
    private readonly queues: QueueStatusCache,
    private readonly prices: HoldPrices,
  ) {}

  /**
   * `user`: the holder; `by.pass`: the admission pass the request came with (an on-sale queue's, header
   * Queue-Pass); `by.staff`: a customer's hold that staff make as an audited action.
   */
  async hold(
    user: AuthUser,
    eventId: string,
    want: HoldWanted,
    ttlSeconds?: number,
    by: { pass?: string; staff?: StaffHoldRun } = {},
  ): Promise<HoldView> {
    try {
      const hold = await this.createHold(user, eventId, want, ttlSeconds, by);
      this.demand.record(eventId, false);
      holdsCreated.inc();
      return HoldView.of(hold, await this.prices.saleOf(hold));
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
    want: HoldWanted,
    ttlSeconds: number | undefined,
    { pass, staff }: { pass?: string; staff?: StaffHoldRun },
  ): Promise<HoldRecord> {
    // an event past its retention may have no keys left in Redis: refused (EVENT_ENDED), never re-created
    const seats = await this.catalogue.requireSeatsToHold(eventId);
    const admission = staff ? 'bypass' : this.admissionOf(user, eventId, pass);
    if ('bestAvailable' in want) {
      const wanted = want.bestAvailable;
      this.bestAvailable.assertFits(seats.values(), wanted);
      return this.policy.attempt(eventId, wanted.quantity, ttlSeconds, async (terms, policy) => {
        // the seats are picked by the hold's script: the types asked must fit any category it may pick from
        const list = await this.prices.listFor(policy);
        const types =
          want.ticketTypes ??
          Array.from({ length: wanted.quantity }, () => ({ ticketType: '', field: 'bestAvailable' }));
        const categories =
          wanted.category !== undefined ? [wanted.category] : (list?.categories.map((c) => c.key) ?? []);
        const pricing = await this.prices.newBestAvailablePricing(list, categories, types, want.promoCode);
        const holdId = HoldIds.generate(eventId);
        return this.unanswered.run(this.sent(holdId, eventId, user, terms.ttlMs), () =>
          this.bestAvailable.hold(
            { eventId, holdId, userId: user.id, want: wanted },
            { ...terms, admission, pricing },
            policy,
            () => seats.values(),
          ),
        );
      });
    }
    const unknown = want.seatIds.filter((s) => !seats.has(s));
    if (unknown.length > 0) {
      throw seatsNotFound(unknown);
    }
    // places of general-admission areas: counted, not named (lua/places.lua)
    const places = want.places ?? [];
    const noArea = places.filter((p) => !seats.areas.has(p.area)).map((p) => p.area);
    if (noArea.length > 0) {
      throw areasNotFound(noArea);
    }
    const placeCount = places.reduce((n, p) => n + p.quantity, 0);
    // sorted: the lock keys and the store's conflict list come out the same whatever order the client used
    const sorted = [...want.seatIds].sort();
    const lines = linesOf(want.seatIds, sorted, want.ticketTypes, (s) => seats.get(s)!.category);
    if (sorted.length > 0 && this.demand.isRush(eventId)) {
      // a flash sale: most requests want seats already held; a lock-free read answers them in one round
      // trip (true when read, as any 409 is) and leaves the seat lock to requests that can get the seats
      const taken = await this.store.seatConflicts(eventId, sorted);
      holdPrechecks.inc({ seats: taken.length > 0 ? 'taken' : 'free' });
      if (taken.length > 0) {
        throw seatsUnavailable(taken);
      }
    }
    return this.policy.attempt(eventId, sorted.length + placeCount, ttlSeconds, async (terms, policy) => {
      // priced under the version of this policy: a hold is made only while it is current (HoldPolicy)
      const list = await this.prices.listFor(policy);
      // places are priced by their area's category, after the seats (HoldPrices pricedItems)
      const placeTypes = [...(want.placeTicketTypes ?? [])];
      const placeLines = places.flatMap((p, k) =>
        placeItems(p.area, p.quantity).map((seatId) => ({
          seatId,
          category: seats.areas.get(p.area)!.category,
          ...(placeTypes.shift() ?? { ticketType: '', field: `places[${k}]` }),
        })),
      );
      const pricing = await this.prices.newHoldPricing(list, {
        lines: [...lines, ...placeLines],
        promoCode: want.promoCode,
      });
      // the id is drawn before the hold is sent: if its reply is lost, the service still knows what to undo
      const holdId = HoldIds.generate(eventId);
      const held = { ...terms, admission, pricing };
      // places alone take no seat lock: the hold's Lua step alone decides (ADR 0012)
      const create = (action?: StaffAction) =>
        sorted.length === 0
          ? this.locked.createPlaces(eventId, places, user.id, holdId, held, action)
          : this.locked.create(eventId, sorted, user.id, holdId, held, action, places);
      // a staff hold whose reply was lost is not undone: its audited action decides it from Redis's
      // ledger and answers the hold it made (AuditedActions)
      return staff
        ? staff(holdId, (_id, action) => create(action).catch(asRefusal))
        : this.unanswered.run(this.sent(holdId, eventId, user, terms.ttlMs), () => create());
    });
  }

  /**
   * How the hold passes the event's on-sale queue (lua/queue.lua q_gate decides, in the hold's own step):
   * staff and the waiting list's offers need no pass; a pass is read for the entry it names (403 when it
   * is not one of ours, or another event's or user's); without one, while this instance sees the queue
   * open, 409 QUEUE_REQUIRED at once, before any Redis work.
   */
  private admissionOf(user: AuthUser, eventId: string, pass: string | undefined): HoldTerms['admission'] {
    if (hasRole(user.roles, Role.AGENT) || user.roles.includes(Role.WAITLIST)) {
      return 'bypass';
    }
    if (pass !== undefined) {
      const { entryId } = this.passes.claimsFor(pass, eventId, user.id);
      return { entry: entryId.slice(HoldIds.prefixOf(eventId).length), pass };
    }
    if (this.queues.get(eventId)?.gates) {
      throw queueRequired(eventId);
    }
    return undefined;
  }

  /** A hold as sent, for its undo should its reply be lost (UnansweredHolds). */
  private sent(holdId: string, eventId: string, user: AuthUser, ttlMs: number): UnansweredHold {
    return { holdId, eventId, userId: user.id, untilMs: Date.now() + ttlMs };
  }

  /**
   * Releases a hold whose reply was lost, as its owner would (seat lock, fencing): its seats read from
   * the hold itself, after the lost script on the same connection and slot (a best-available request
   * never learnt them).
   */
  private async undo(h: UnansweredHold): Promise<StoreResult<string>> {
    const made = await this.store.getHold(h.holdId);
    if (!made) {
      return { ok: false, error: 'HOLD_NOT_FOUND' };
    }
    const outcome = await this.releaseForCancel(made);
    return outcome === 'booked' ? { ok: false, error: 'HOLD_CONFIRMED' } : { ok: true, hold: made };
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
      this.locked.release(hold.eventId, lockedSeatsOf(hold), hold.holdId, hold.userId),
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

  /** `requestKey`: the same key again is the same extension retried (HoldStore.extendHold). */
  async extend(user: AuthUser, holdId: string, ttlSeconds: number, requestKey?: string): Promise<HoldView> {
    const limits = this.config.holds;
    const hold = await this.ownHold(user, holdId);
    // the hold's own terms, given when it was made (the deployment's for a hold that has none recorded)
    const maxExtensions = hold.maxExtensions ?? limits.maxExtensions;
    this.assertTtl(ttlSeconds, hold.maxTtlMs ? hold.maxTtlMs / 1000 : limits.maxTtlSeconds);
    const r = await busyIfLockLost(() =>
      this.locked.extend(
        hold.eventId,
        lockedSeatsOf(hold),
        holdId,
        user.id,
        ttlSeconds * 1000,
        maxExtensions,
        requestKey,
      ),
    );
    holdChanges.inc({ action: 'extend', outcome: r.ok ? 'ok' : r.error });
    if (r.ok) {
      return HoldView.of(r.hold, await this.prices.saleOf(r.hold));
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
    const r = await busyIfLockLost(() =>
      this.locked.release(hold.eventId, lockedSeatsOf(hold), holdId, user.id),
    );
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
 * The lines of a hold by seat ids in the hold's (sorted) seat order: each seat's category and the type asked
 * for it where the request named one (`asked`, in the request's order), else '' (the category's default).
 */
function linesOf(
  requested: readonly string[],
  sorted: readonly string[],
  asked: readonly WantedType[] | undefined,
  categoryOf: (seatId: string) => string,
) {
  const byId = new Map(
    requested.map((s, i) => [s, asked?.[i] ?? { ticketType: '', field: `seatIds[${i}]` }]),
  );
  return sorted.map((seatId) => ({ seatId, category: categoryOf(seatId), ...byId.get(seatId)! }));
}

/**
 * What a staff hold's attempt threw, as its audited action takes it: the store's refusals (a domain error,
 * POLICY_CHANGED) wrote nothing; any other failure leaves that open.
 */
function asRefusal(e: unknown): never {
  throw e instanceof DomainError || e instanceof PolicyChanged ? new ActionRefused(e) : e;
}
