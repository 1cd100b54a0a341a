import { DistributedLockOptions } from '@app/distributed-lock';

/** The lock key of one seat: all seats of an event share the `{eventId}` hash tag (one slot, one fence sequence). */
export const seatLockKeys = (eventId: string, seatIds: readonly string[]) =>
  seatIds.map((s) => `seat:{${eventId}}:${s}`);

/** What a class whose methods take the seat lock provides: lease and wait, from configuration. */
export interface SeatLockSettings {
  readonly lockLeaseMs: number;
  readonly lockWaitMs: number;
}

/**
 * Every seat change locks the seats it touches, all at once, with a fixed lease (no watchdog: the
 * critical sections are a few round trips; a confirm keeps its PostgreSQL work inside the lease).
 */
export const SEAT_LOCK: DistributedLockOptions<[string, string[]]> = {
  key: seatLockKeys,
  leaseMs: (s: SeatLockSettings) => s.lockLeaseMs,
  waitMs: (s: SeatLockSettings) => s.lockWaitMs,
};
