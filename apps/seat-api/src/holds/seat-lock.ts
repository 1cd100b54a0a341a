import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { DistributedLockOptions, LockBusy } from '@app/distributed-lock';
import { seatsUnavailable } from './hold-errors';
import { holdContention } from './holds.metrics';
import { HoldLayout, HoldStore, SeatConflict } from '../hold-store';

/**
 * The lock keys of seats: `seat:{s<k>}:<eventId>:<seatId>`, the tag of the event's shard (hold-store/hold-keys.ts),
 * so they share the slot and the fencing counter of the hold store's keys of that event.
 */
export const seatLockKeys = (layout: HoldLayout, eventId: string, seatIds: readonly string[]) =>
  layout.seatLockKeys(eventId, seatIds);

/**
 * The seat lock's settings, one provider for every class whose methods take it: lease and wait from
 * configuration (SEAT_LOCK_LEASE_MS, SEAT_LOCK_WAIT_MS), keys from the hold store's shard layout.
 */
@Injectable()
export class SeatLockSettings {
  readonly leaseMs: number;
  readonly waitMs: number;
  private readonly layout: HoldLayout;

  constructor(config: AppConfig, store: HoldStore) {
    this.leaseMs = config.holds.seatLockLeaseMs;
    this.waitMs = config.holds.seatLockWaitMs;
    this.layout = store.layout;
  }

  keys(eventId: string, seatIds: readonly string[]): string[] {
    return this.layout.seatLockKeys(eventId, seatIds);
  }
}

/** A class whose methods take the seat lock: SEAT_LOCK reads the settings from it. */
export interface SeatLockHost {
  readonly seatLock: SeatLockSettings;
}

/**
 * Every seat change locks the seats it touches, all at once, with a fixed lease (no watchdog: the
 * critical sections are a few round trips; a confirm keeps its PostgreSQL work inside the lease).
 * A busy lock is waited for, then 503 BUSY:
 *   - held by a request of this instance: until it lets go (its release wakes the waiter at once), at
 *     most one lease (after which its keys are gone whatever it does). Under a flash sale the holder's
 *     few round trips queue behind this instance's own load for longer than lockWaitMs, and a wait of
 *     lockWaitMs would end in 503 although the answer is on its way.
 *   - held by another instance (no wake crosses instances): polled with jitter for lockWaitMs.
 */
export const SEAT_LOCK: DistributedLockOptions<[string, string[]]> = {
  key: function (this: SeatLockHost, eventId: string, seatIds: string[]) {
    return this.seatLock.keys(eventId, seatIds);
  },
  leaseMs: (host: SeatLockHost) => host.seatLock.leaseMs,
  waitMs: (host: SeatLockHost) => host.seatLock.waitMs,
  localWaitMs: (host: SeatLockHost) => host.seatLock.leaseMs,
};

/** A class that creates holds under HOLD_SEAT_LOCK: it can read which seats are taken, without a lock. */
export interface HoldSeatLockHost extends SeatLockHost {
  takenSeats(eventId: string, seatIds: readonly string[]): Promise<SeatConflict[]>;
}

/**
 * The seat lock of a new hold: SEAT_LOCK, plus an answer for contention.
 *
 * In a flash sale a locked seat is almost always being taken by the request that holds its lock, and
 * the true answer for everyone else is 409 SEATS_UNAVAILABLE, not 503 BUSY. So each time the lock is
 * found busy (the first attempt, each retry after a wake or a poll, the last one when the wait runs out) the request reads
 * its seats' states without the lock (one read-only script, see hold-store/seat-conflicts.ts):
 *   - any seat HELD or BOOKED: answer 409 SEATS_UNAVAILABLE with the conflict list, exactly as the hold
 *     script would have, without waiting. True at the moment of the read, which is all a 409 ever says
 *     (the locked script's 409 is as old by the time it reaches the client).
 *   - all free: the holder has not written yet, or it failed / gives up (another of its seats was
 *     taken, its user is at the cap, it lost its lease). Wait for its release and try again: the holder
 *     then either has the seat (the next read answers 409) or not (we lock and take it).
 * Only a lock still held when the wait runs out, over seats that are still free, answers 503 BUSY: a
 * holder that neither takes the seats nor lets go (stuck, or Redis slow) leaves nothing true to say.
 *
 * The read happens only under contention. The lock and its fencing are unchanged: a 409 from the read
 * writes nothing, and a seat is only ever taken by the hold script while the lock is the request's.
 *
 * Pipelined (RunOptions.pipelined): the acquire and the hold script are sent in one tick, so one batch,
 * one round trip, and Redis runs them in that order. The script checks the seat locks hold this request's
 * owner token before it reads or writes anything (NOT_LOCKED otherwise), takes the shard's fencing counter
 * as its token, the lock being its own at that moment, and deletes the lock's keys as its last change
 * (HeldLock.letGoInScript: no release command). So the lock is held only while the script runs: requests of one instance share one auto-pipelined connection and Redis runs one
 * batch after another, so they never find each other's seat locks busy at all. (Not with
 * REDIS_WAIT_REPLICAS > 0: the lock is then kept across the WAIT and a possible undo, LockedHoldChanges.)
 * A lock held elsewhere (another instance mid-change, or a confirm) makes the first acquire answer busy
 * and the script refuse; the request then waits and asks as described above, and runs again with its
 * lock acquired first.
 */
export const HOLD_SEAT_LOCK: DistributedLockOptions<[string, string[]]> = {
  ...SEAT_LOCK,
  pipelined: true, // the hold script checks the lock's ownership itself (see above)
  onContention: async (_busy: LockBusy, host: HoldSeatLockHost, [eventId, seatIds]) => {
    const taken = await host.takenSeats(eventId, seatIds);
    holdContention.inc({ seats: taken.length > 0 ? 'taken' : 'free' });
    if (taken.length > 0) {
      throw seatsUnavailable(taken);
    }
  },
};

/**
 * What a change of an existing hold locks: its seats (sorted, so every request locks them in one order),
 * or, for a hold of general-admission places alone, a key of the hold's own (`@<holdId>`: no seat id has
 * an '@'), so its extend, release, confirm and staff changes still run one at a time with a fencing token.
 */
export function lockedSeatsOf(hold: { holdId: string; seatIds: readonly string[] }): string[] {
  return hold.seatIds.length > 0 ? [...hold.seatIds].sort() : [`@${hold.holdId}`];
}
