import { LockLostError, LockNotAcquiredError } from '@app/distributed-lock';
import { counter } from '@app/observability';
import { ApiError } from '../common/api-error';
import { HoldView } from './hold.view';
import type { HoldRecord, LostSeat, SeatConflict } from '../hold-store';

/** The refusals the hold use cases share, in one place so each code means one thing everywhere. */

const staleFenceRejections = counter(
  'seat_stale_fence_rejections_total',
  'Writes refused because their fencing token was older than the seats (a lock lost mid-change)',
  ['action'],
);

export type HoldAction = 'hold' | 'extend' | 'release' | 'confirm';

export function holdNotFound(holdId: string): ApiError {
  return new ApiError(404, 'HOLD_NOT_FOUND', `Hold ${holdId} does not exist`);
}

export function holdNotActive(hold: HoldRecord | undefined): ApiError {
  // CONFIRMING reads as ACTIVE in the Hold view, but "the hold is ACTIVE" would be a puzzling refusal
  const state = !hold
    ? 'not active'
    : hold.status === 'CONFIRMING'
      ? 'being confirmed'
      : HoldView.of(hold).status;
  return new ApiError(409, 'HOLD_NOT_ACTIVE', `The hold is ${state}`);
}

export function holdExpired(): ApiError {
  return new ApiError(409, 'HOLD_EXPIRED', 'The hold expired before it was confirmed');
}

/** A new hold's seats are taken: the store's conflict list, whether the hold script or a lock-free read found it. */
export function seatsUnavailable(conflicts: SeatConflict[]): ApiError {
  return new ApiError(409, 'SEATS_UNAVAILABLE', `${conflicts.length} seat(s) are not available`, conflicts);
}

/** Some seats of a live hold are no longer its own (booked by someone else after Redis lost data). */
export function seatsLost(lost: LostSeat[] | undefined): ApiError {
  const seats = lost ?? [];
  return new ApiError(
    409,
    'SEATS_UNAVAILABLE',
    `${seats.length} seat(s) of this hold are no longer held by it`,
    seats.map(({ seatId, state }) => ({ seatId, reason: state })),
  );
}

/**
 * The store refused a write whose fencing token is older than the seat's: this process lost its seat
 * lock (paused past the lease, say) and someone else has changed the seats since. Counted, because each
 * one is a late write that fencing stopped; the client may simply retry.
 */
export function staleFence(action: HoldAction): ApiError {
  staleFenceRejections.inc({ action });
  return busy('These seats were changed concurrently; try again');
}

export function busy(message: string): ApiError {
  return new ApiError(503, 'BUSY', message, undefined, { 'retry-after': '1' });
}

/**
 * PostgreSQL could not write or read the booking in time. Nothing was booked by this request (or the
 * outcome is still being decided); the client retries the same call with the same orderId.
 */
export function bookingUnavailable(message: string): ApiError {
  return new ApiError(503, 'BOOKING_UNAVAILABLE', message, undefined, { 'retry-after': '2' });
}

/**
 * The lock library's validity check (LockHandle.assertValid) refused a write: the lease ran out under
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
  if (e instanceof ApiError) {
    return e.code;
  }
  return e instanceof LockNotAcquiredError ? 'BUSY' : 'ERROR';
}
