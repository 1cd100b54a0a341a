import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/config';
import {
  currentLock,
  DistributedLock,
  DistributedLockOptions,
  LockNotAcquiredError,
} from '@app/distributed-lock';
import { counter } from '@app/observability';
import { AuthUser } from '../auth/auth-user';
import { CatalogueService } from '../catalogue/catalogue.service';
import { ApiError } from '../common/api-error';
import { BookingRepository } from './booking.repository';
import { BookingView, HoldView } from './hold.view';
import { HoldIds, HoldRecord, HoldStore } from './store';

const holdsCreated = counter('seat_holds_created_total', 'Holds created');
const holdsRejected = counter('seat_holds_rejected_total', 'Hold requests refused, by reason', ['reason']);
const staleFenceRejections = counter(
  'seat_stale_fence_rejections_total',
  'Writes refused because their fencing token was older than the seats (a lock lost mid-change)',
  ['action'],
);
const holdChanges = counter('seat_hold_changes_total', 'Extend, release and confirm outcomes', [
  'action',
  'outcome',
]);

/** The lock key of one seat: all seats of an event share the `{eventId}` hash tag (one slot, one fence sequence). */
export const seatLockKeys = (eventId: string, seatIds: readonly string[]) =>
  seatIds.map((s) => `seat:{${eventId}}:${s}`);

/** Every seat change locks the seats it touches, all at once, with lease and wait from configuration. */
const SEAT_LOCK: DistributedLockOptions<[string, string[]]> = {
  key: seatLockKeys,
  leaseMs: (s: HoldsService) => s.lockLeaseMs,
  waitMs: (s: HoldsService) => s.lockWaitMs,
};

/**
 * Hold, extend, release, confirm. Each change locks the seats it touches (all at once, briefly) and
 * hands the lock's fencing token to the store, which refuses writes from a holder that lost its lock.
 */
@Injectable()
export class HoldsService {
  private readonly logger = new Logger('Holds');
  readonly lockLeaseMs: number;
  readonly lockWaitMs: number;

  constructor(
    private readonly store: HoldStore,
    private readonly catalogue: CatalogueService,
    private readonly bookings: BookingRepository,
    private readonly config: AppConfig,
  ) {
    this.lockLeaseMs = config.holds.seatLockLeaseMs;
    this.lockWaitMs = config.holds.seatLockWaitMs;
  }

  async hold(user: AuthUser, eventId: string, seatIds: string[], ttlSeconds?: number): Promise<HoldView> {
    try {
      const hold = await this.createHold(user, eventId, seatIds, ttlSeconds);
      holdsCreated.inc();
      this.logger.log(
        `hold ${hold.holdId} created: event ${eventId}, ${seatIds.length} seat(s), user ${user.id}`,
      );
      return HoldView.of(hold);
    } catch (e) {
      // every refusal is counted by its reason, whichever layer refused (limits, catalogue, store, lock)
      holdsRejected.inc({ reason: rejectionReason(e) });
      throw e;
    }
  }

  private async createHold(
    user: AuthUser,
    eventId: string,
    seatIds: string[],
    ttlSeconds?: number,
  ): Promise<HoldRecord> {
    const limits = this.config.holds;
    const ttl = ttlSeconds ?? limits.defaultTtlSeconds;
    this.assertTtl(ttl);
    if (seatIds.length > limits.maxSeatsPerHold) {
      throw new ApiError(400, 'VALIDATION_FAILED', 'Too many seats in one hold', [
        { field: 'seatIds', message: `at most ${limits.maxSeatsPerHold} seats per hold` },
      ]);
    }
    const catalogue = await this.catalogue.requireSeats(eventId);
    const unknown = seatIds.filter((s) => !catalogue.has(s));
    if (unknown.length > 0) {
      throw new ApiError(
        404,
        'SEAT_NOT_FOUND',
        `${unknown.length} seat(s) do not exist in this event`,
        unknown.map((seatId) => ({ seatId })),
      );
    }
    // sorted: the lock keys and the store's conflict list come out the same whatever order the client used
    return this.lockedCreate(eventId, [...seatIds].sort(), user.id, ttl * 1000);
  }

  async get(user: AuthUser, holdId: string): Promise<HoldView> {
    const hold = await this.store.getHold(holdId);
    if (hold && hold.userId === user.id) {
      return HoldView.of(hold);
    }
    if (!hold) {
      // past the retention period Redis forgot the hold; a booking still tells what became of it
      const booking = HoldIds.parse(holdId) ? await this.bookings.findByHold(holdId) : null;
      if (booking && booking.userId === user.id && booking.status === 'CONFIRMED') {
        const at = booking.createdAt.getTime();
        return HoldView.of({
          holdId,
          eventId: booking.eventId,
          userId: booking.userId,
          status: 'CONFIRMED',
          seatIds: booking.seatIds,
          createdAtMs: at,
          expireAtMs: at,
          maxExpireAtMs: at,
          extensionsUsed: 0,
          fencingToken: booking.fencingToken,
          orderId: booking.orderId,
          endedAtMs: at,
          confirmDeadlineMs: null,
          nowMs: Date.now(),
        });
      }
    }
    throw notFound(holdId);
  }

  async extend(user: AuthUser, holdId: string, ttlSeconds: number): Promise<HoldView> {
    const limits = this.config.holds;
    this.assertTtl(ttlSeconds);
    const hold = await this.ownHold(user, holdId);
    const r = await this.lockedExtend(hold.eventId, hold.seatIds, holdId, user.id, ttlSeconds * 1000);
    holdChanges.inc({ action: 'extend', outcome: r.ok ? 'ok' : r.error });
    if (r.ok) {
      this.logger.log(
        `hold ${holdId} extended: event ${hold.eventId}, expires ${new Date(r.hold.expireAtMs).toISOString()}`,
      );
      return HoldView.of(r.hold);
    }
    switch (r.error) {
      case 'HOLD_NOT_FOUND':
        throw notFound(holdId);
      case 'HOLD_NOT_ACTIVE':
        throw notActive(r.hold);
      case 'HOLD_LIFETIME_EXCEEDED':
        throw new ApiError(
          422,
          'HOLD_LIFETIME_EXCEEDED',
          `A hold lives at most ${limits.maxLifetimeSeconds} s in total`,
        );
      case 'EXTENSION_LIMIT_REACHED':
        throw new ApiError(
          422,
          'EXTENSION_LIMIT_REACHED',
          `A hold can be extended at most ${limits.maxExtensions} times`,
        );
      case 'STALE_FENCING_TOKEN':
        throw staleFence('extend');
    }
  }

  async release(user: AuthUser, holdId: string): Promise<void> {
    const hold = await this.ownHold(user, holdId);
    if (hold.status === 'RELEASED' || hold.status === 'EXPIRED') {
      // already over: nothing to lock; still let the store settle an unswept expiry (records its events)
      if (hold.status === 'EXPIRED') {
        await this.store.releaseHold({ holdId, userId: user.id, fencingToken: 0 });
      }
      return;
    }
    const r = await this.lockedRelease(hold.eventId, hold.seatIds, holdId, user.id);
    holdChanges.inc({ action: 'release', outcome: r.ok ? 'ok' : r.error });
    if (r.ok) {
      this.logger.log(`hold ${holdId} released: event ${hold.eventId}`);
      return;
    }
    switch (r.error) {
      case 'HOLD_NOT_FOUND':
        throw notFound(holdId);
      case 'HOLD_CONFIRMED':
        throw new ApiError(409, 'HOLD_CONFIRMED', 'A confirmed hold cannot be released');
      case 'STALE_FENCING_TOKEN':
        throw staleFence('release');
    }
  }

  /** Returns the booking and whether this call created it (201) or replayed it (200). */
  async confirm(
    user: AuthUser,
    holdId: string,
    orderId: string,
  ): Promise<{ created: boolean; booking: BookingView }> {
    // PostgreSQL decides first: a replay must work even after Redis forgot the hold (retention)
    const existing = HoldIds.parse(holdId) ? await this.bookings.findByHold(holdId) : null;
    if (existing && existing.userId === user.id) {
      if (existing.status === 'ABANDONED') {
        // the reconciler gave up on this hold; if it died before telling Redis, finish that for it
        await this.store.abandonConfirm({ holdId });
        throw new ApiError(409, 'HOLD_EXPIRED', 'The hold expired before it could be confirmed');
      }
      if (existing.orderId !== orderId) {
        throw new ApiError(409, 'HOLD_NOT_ACTIVE', 'This hold was confirmed with another orderId');
      }
      await this.finishConfirm(holdId, orderId); // completes a confirm that crashed after PostgreSQL
      holdChanges.inc({ action: 'confirm', outcome: 'replayed' });
      return { created: false, booking: toBookingView(existing) };
    }
    const hold = await this.ownHold(user, holdId);
    try {
      const result = await this.lockedConfirm(hold.eventId, hold.seatIds, holdId, user.id, orderId);
      holdChanges.inc({ action: 'confirm', outcome: result.created ? 'ok' : 'replayed' });
      return result;
    } catch (e) {
      holdChanges.inc({ action: 'confirm', outcome: rejectionReason(e) });
      throw e;
    }
  }

  // ---- the locked critical sections: seats of one event, all at once, short lease

  @DistributedLock(SEAT_LOCK)
  private async lockedCreate(
    eventId: string,
    seatIds: string[],
    userId: string,
    ttlMs: number,
  ): Promise<HoldRecord> {
    const limits = this.config.holds;
    const r = await this.store.createHold({
      eventId,
      holdId: HoldIds.generate(eventId),
      userId,
      seatIds,
      ttlMs,
      maxLifetimeMs: limits.maxLifetimeSeconds * 1000,
      maxSeatsPerUser: limits.maxSeatsPerUser,
      fencingToken: currentLock()!.fencingToken,
    });
    if (r.ok) {
      return r.hold;
    }
    switch (r.error) {
      case 'SEATS_UNAVAILABLE':
        throw new ApiError(
          409,
          'SEATS_UNAVAILABLE',
          `${r.conflicts.length} seat(s) are not available`,
          r.conflicts,
        );
      case 'HOLD_LIMIT_EXCEEDED':
        throw new ApiError(
          422,
          'HOLD_LIMIT_EXCEEDED',
          `You already hold ${r.heldSeats} seat(s) for this event; the limit is ${r.limit}`,
        );
      case 'STALE_FENCING_TOKEN':
        throw staleFence('hold');
    }
  }

  @DistributedLock(SEAT_LOCK)
  private lockedExtend(_eventId: string, _seatIds: string[], holdId: string, userId: string, ttlMs: number) {
    return this.store.extendHold({
      holdId,
      userId,
      ttlMs,
      maxExtensions: this.config.holds.maxExtensions,
      fencingToken: currentLock()!.fencingToken,
    });
  }

  @DistributedLock(SEAT_LOCK)
  private lockedRelease(_eventId: string, _seatIds: string[], holdId: string, userId: string) {
    return this.store.releaseHold({ holdId, userId, fencingToken: currentLock()!.fencingToken });
  }

  /**
   * Confirm, crash-safe: (1) the hold becomes CONFIRMING, so the sweeper leaves it alone; (2) one PostgreSQL
   * transaction writes the booking (unique per hold and per seat); (3) the seats become BOOKED. A crash
   * after (1) or (2) is finished or undone by the reconciler from what PostgreSQL says.
   */
  @DistributedLock(SEAT_LOCK)
  private async lockedConfirm(
    _eventId: string,
    _seatIds: string[],
    holdId: string,
    userId: string,
    orderId: string,
  ): Promise<{ created: boolean; booking: BookingView }> {
    const begun = await this.store.beginConfirm({
      holdId,
      userId,
      orderId,
      fencingToken: currentLock()!.fencingToken,
      confirmTimeoutMs: this.config.holds.confirmTimeoutMs,
    });
    if (!begun.ok) {
      switch (begun.error) {
        case 'HOLD_NOT_FOUND':
          throw notFound(holdId);
        case 'HOLD_EXPIRED':
          throw new ApiError(409, 'HOLD_EXPIRED', 'The hold expired before it was confirmed');
        case 'HOLD_NOT_ACTIVE':
          throw notActive(begun.hold);
        case 'STALE_FENCING_TOKEN':
          throw staleFence('confirm');
      }
    }
    // If this throws (PostgreSQL down, or the connection dropped around COMMIT) the hold stays CONFIRMING:
    // we cannot know whether the booking committed, so only the reconciler, reading PostgreSQL after the
    // confirm deadline, may decide between BOOKED and giving the seats back.
    const booked = await this.bookings.book(begun.hold, orderId);
    if (!booked.ok) {
      if (booked.reason === 'HOLD_ALREADY_DECIDED' && booked.existing.status === 'CONFIRMED') {
        if (booked.existing.orderId !== orderId) {
          throw new ApiError(409, 'HOLD_NOT_ACTIVE', 'This hold was confirmed with another orderId');
        }
        await this.finishConfirm(holdId, orderId);
        return { created: false, booking: toBookingView(booked.existing) };
      }
      await this.store.abandonConfirm({ holdId });
      if (booked.reason === 'SEAT_ALREADY_BOOKED') {
        this.logger.error(
          `hold ${holdId}: a seat is already booked in PostgreSQL though Redis held it for this hold`,
        );
        throw new ApiError(409, 'SEATS_UNAVAILABLE', 'A seat of this hold is already booked');
      }
      throw new ApiError(409, 'HOLD_EXPIRED', 'The hold expired before it could be confirmed');
    }
    await this.finishConfirm(holdId, orderId);
    this.logger.log(`hold ${holdId} confirmed: event ${begun.hold.eventId}, order ${orderId}`);
    return { created: true, booking: toBookingView(booked.booking) };
  }

  /**
   * Step (d): seats BOOKED in Redis. The booking is already committed, so a failure here must not fail
   * the request: the reconciler finishes CONFIRMING holds from what PostgreSQL says.
   */
  private async finishConfirm(holdId: string, orderId: string): Promise<void> {
    try {
      const r = await this.store.finishConfirm({ holdId, orderId });
      if (!r.ok && r.error !== 'HOLD_NOT_FOUND') {
        this.logger.warn(`hold ${holdId}: booked in PostgreSQL, Redis finish refused (${r.error})`);
      }
    } catch (e) {
      this.logger.warn(
        `hold ${holdId}: booked in PostgreSQL, Redis finish failed (${(e as Error).message}); reconciler repairs`,
      );
    }
  }

  /** The allowed ttl range is a deployment setting (a test deployment may allow 1 s). */
  private assertTtl(ttlSeconds: number): void {
    const { minTtlSeconds, maxTtlSeconds } = this.config.holds;
    if (ttlSeconds < minTtlSeconds || ttlSeconds > maxTtlSeconds) {
      throw new ApiError(400, 'VALIDATION_FAILED', 'ttlSeconds is out of range', [
        { field: 'ttlSeconds', message: `must be between ${minTtlSeconds} and ${maxTtlSeconds}` },
      ]);
    }
  }

  private async ownHold(user: AuthUser, holdId: string): Promise<HoldRecord> {
    const hold = await this.store.getHold(holdId);
    if (!hold || hold.userId !== user.id) {
      throw notFound(holdId);
    }
    return hold;
  }
}

/** A bounded label for a refused request: our own code, BUSY for lock contention, else ERROR. */
function rejectionReason(e: unknown): string {
  if (e instanceof ApiError) {
    return e.code;
  }
  return e instanceof LockNotAcquiredError ? 'BUSY' : 'ERROR';
}

function notFound(holdId: string): ApiError {
  return new ApiError(404, 'HOLD_NOT_FOUND', `Hold ${holdId} does not exist`);
}

function notActive(hold: HoldRecord | undefined): ApiError {
  // CONFIRMING reads as ACTIVE in the Hold view, but "the hold is ACTIVE" would be a puzzling refusal
  const state = !hold
    ? 'not active'
    : hold.status === 'CONFIRMING'
      ? 'being confirmed'
      : HoldView.of(hold).status;
  return new ApiError(409, 'HOLD_NOT_ACTIVE', `The hold is ${state}`);
}

/**
 * The store refused a write whose fencing token is older than the seat's: this process lost its seat
 * lock (paused past the lease, say) and someone else has changed the seats since. Counted, because each
 * one is a late write that fencing stopped; the client may simply retry.
 */
function staleFence(action: 'hold' | 'extend' | 'release' | 'confirm'): ApiError {
  staleFenceRejections.inc({ action });
  return new ApiError(503, 'BUSY', 'These seats were changed concurrently; try again', undefined, {
    'retry-after': '1',
  });
}

function toBookingView(b: {
  id: string;
  holdId: string;
  orderId: string | null;
  eventId: string;
  seatIds: string[];
}): BookingView {
  return {
    bookingId: b.id,
    holdId: b.holdId,
    orderId: b.orderId!,
    eventId: b.eventId,
    seatIds: b.seatIds,
    status: 'CONFIRMED',
  };
}
