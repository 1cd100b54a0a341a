import { LockLostError, LockNotAcquiredError } from '@app/distributed-lock';
import { counter } from '@app/observability';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { HoldView } from './hold.view';
import type { HoldRecord, LostSeat, SeatConflict } from '../hold-store';

/**
 * The refusals the hold use cases share, in one place so each code means one thing everywhere. They name
 * a code, never an HTTP status: the error filter answers each (common/errors/error-http.ts).
 */

const staleFenceRejections = counter(
  'seat_stale_fence_rejections_total',
  'Writes refused because their fencing token was older than the seats (a lock lost mid-change)',
  ['action'],
);

export type HoldAction = 'hold' | 'extend' | 'release' | 'confirm';

export function holdNotFound(holdId: string): DomainError {
  return new DomainError(ErrorCode.HOLD_NOT_FOUND, `Hold ${holdId} does not exist`);
}

export function holdNotActive(hold: HoldRecord | undefined): DomainError {
  // CONFIRMING reads as ACTIVE in the Hold view, but "the hold is ACTIVE" would be a puzzling refusal
  const state = !hold
    ? 'not active'
    : hold.status === 'CONFIRMING'
      ? 'being confirmed'
      : HoldView.of(hold).status;
  return new DomainError(ErrorCode.HOLD_NOT_ACTIVE, `The hold is ${state}`);
}

export function holdExpired(): DomainError {
  return new DomainError(ErrorCode.HOLD_EXPIRED, 'The hold expired before it was confirmed');
}

export function holdConfirmed(): DomainError {
  return new DomainError(ErrorCode.HOLD_CONFIRMED, 'A confirmed hold cannot be released');
}

/** The hold is booked, under another orderId than this confirm's. */
export function confirmedWithAnotherOrder(): DomainError {
  return new DomainError(ErrorCode.HOLD_NOT_ACTIVE, 'This hold was confirmed with another orderId');
}

/**
 * The allowed ttl range is a deployment setting (a test deployment may allow 1 s), its top the event's:
 * the bounds are fields of their own, so a client (the waiting list) retries within them without reading
 * the message.
 */
export function ttlOutOfRange(min: number, max: number): DomainError {
  return new DomainError(ErrorCode.VALIDATION_FAILED, 'ttlSeconds is out of range', {
    details: [{ field: 'ttlSeconds', message: `must be between ${min} and ${max}`, min, max }],
  });
}

export function tooManySeats(maxSeatsPerHold: number): DomainError {
  return new DomainError(ErrorCode.VALIDATION_FAILED, 'Too many seats in one hold', {
    details: [{ field: 'seatIds', message: `at most ${maxSeatsPerHold} seats per hold` }],
  });
}

export function seatsNotFound(seatIds: string[]): DomainError {
  return new DomainError(ErrorCode.SEAT_NOT_FOUND, `${seatIds.length} seat(s) do not exist in this event`, {
    details: seatIds.map((seatId) => ({ seatId })),
  });
}

export function holdLimitExceeded(heldSeats: number, limit: number): DomainError {
  return new DomainError(
    ErrorCode.HOLD_LIMIT_EXCEEDED,
    `You already hold ${heldSeats} seat(s) for this event; the limit is ${limit}`,
  );
}

export function lifetimeExceeded(maxLifetimeSeconds: number): DomainError {
  return new DomainError(
    ErrorCode.HOLD_LIFETIME_EXCEEDED,
    `A hold lives at most ${maxLifetimeSeconds} s in total`,
  );
}

export function extensionLimitReached(maxExtensions: number): DomainError {
  return new DomainError(
    ErrorCode.EXTENSION_LIMIT_REACHED,
    `A hold can be extended at most ${maxExtensions} times`,
  );
}

/** A new hold's seats are taken: the store's conflict list, whether the hold script or a lock-free read found it. */
export function seatsUnavailable(conflicts: SeatConflict[]): DomainError {
  return new DomainError(ErrorCode.SEATS_UNAVAILABLE, `${conflicts.length} seat(s) are not available`, {
    details: conflicts,
  });
}

/** General-admission areas with too few free places for the hold: each, with how many are free. */
export function soldOut(areas: { area: string; free: number }[]): DomainError {
  const left = areas.map((a) => `${a.area}: ${a.free} left`).join(', ');
  return new DomainError(ErrorCode.SOLD_OUT, `Too few places free (${left})`, { details: areas });
}

/** Areas the event does not have. */
export function areasNotFound(areas: string[]): DomainError {
  return new DomainError(ErrorCode.AREA_NOT_FOUND, `${areas.length} area(s) not found in this event`, {
    details: areas.map((area) => ({ area })),
  });
}

/** Some seats of a live hold are no longer its own (booked by someone else after Redis lost data). */
export function seatsLost(lost: LostSeat[] | undefined): DomainError {
  const seats = lost ?? [];
  return new DomainError(
    ErrorCode.SEATS_UNAVAILABLE,
    `${seats.length} seat(s) of this hold are no longer held by it`,
    { details: seats.map(({ seatId, state }) => ({ seatId, reason: state })) },
  );
}

/** PostgreSQL has other holds' bookings for these seats (Redis had lost them). */
export function seatsBooked(seatIds: string[]): DomainError {
  return new DomainError(
    ErrorCode.SEATS_UNAVAILABLE,
    `${seatIds.length} seat(s) of this hold are already booked`,
    {
      details: seatIds.map((seatId) => ({ seatId, reason: 'BOOKED' })),
    },
  );
}

/**
 * The store refused a write whose fencing token is older than the seat's: this process lost its seat
 * lock (paused past the lease, say) and someone else has changed the seats since. Counted, because each
 * one is a late write that fencing stopped; the client may simply retry.
 */
export function staleFence(action: HoldAction): DomainError {
  staleFenceRejections.inc({ action });
  return busy('These seats were changed concurrently; try again');
}

export function busy(message: string): DomainError {
  return new DomainError(ErrorCode.BUSY, message);
}

/**
 * PostgreSQL could not write or read the booking in time. Nothing was booked by this request (or the
 * outcome is still being decided); the client retries the same call with the same orderId.
 */
export function bookingUnavailable(message: string): DomainError {
  return new DomainError(ErrorCode.BOOKING_UNAVAILABLE, message);
}

/**
 * The lock library's validity check (HeldLock.assertValid) refused a write: the lease ran out under
 * us (a pause, a slow call). Nothing was written; the same answer as contention, so a retry is safe.
 */
export function lockLostAsBusy(e: unknown): unknown {
  return e instanceof LockLostError ? busy('Lost the lock on these seats before writing; try again') : e;
}

/** Runs a locked change, answering a lost lease as BUSY (see lockLostAsBusy). */
export async function busyIfLockLost<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw lockLostAsBusy(e);
  }
}

/** A bounded label for a refused request: our own code, BUSY for lock contention, else ERROR. */
export function rejectionReason(e: unknown): string {
  if (e instanceof DomainError) {
    return e.code;
  }
  return e instanceof LockNotAcquiredError ? 'BUSY' : 'ERROR';
}
