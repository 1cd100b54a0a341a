import { Logger } from '@nestjs/common';
import type { DistributedLockModuleOptions } from './distributed-lock.options';
import { LockLostError } from './errors';
import type { TrackedLock } from './tracked-lock';
import type { LockMetrics } from './lock-metrics';
import type { LockWaiters } from './lock-waiters';
import { Watchdog } from './watchdog';

/**
 * The locks this process holds and what it knows of their leases: the watchdog's membership, the expiry
 * timers of armed signals, validity checks, and the one way a lock becomes lost (`lost`). No Redis here.
 */
export class LeaseTracker {
  private readonly held = new Set<TrackedLock>();
  private readonly watchdog: Watchdog;

  constructor(
    private readonly metrics: LockMetrics,
    private readonly logger: Logger,
    private readonly onLockLost: DistributedLockModuleOptions['onLockLost'],
    watchdogLeaseMs: number,
    renew: (locks: TrackedLock[]) => Promise<void>,
    /** Told which keys this process holds, so a busy acquire knows whether a release here will wake it. */
    private readonly waiters: LockWaiters,
  ) {
    this.watchdog = new Watchdog(watchdogLeaseMs, renew);
  }

  get size(): number {
    return this.held.size;
  }

  all(): TrackedLock[] {
    return [...this.held];
  }

  stop(): void {
    this.watchdog.stop();
  }

  track(lock: TrackedLock): TrackedLock {
    this.held.add(lock);
    this.waiters.held(lock.redisKeys);
    if (lock.watchdog) {
      this.watchdog.add(lock);
    }
    return lock;
  }

  /** Synchronous, so no renewal can start for it from here on. */
  untrack(lock: TrackedLock): void {
    lock.released = true;
    clearTimeout(lock.expiryTimer);
    this.watchdog.remove(lock);
    this.forget(lock);
  }

  private forget(lock: TrackedLock): void {
    if (this.held.delete(lock)) {
      this.waiters.unheld(lock.redisKeys);
    }
  }

  /** Redis confirmed the lease until `validUntil` (monotonic): move the deadline and its timer. */
  renewed(lock: TrackedLock, validUntil: number): void {
    lock.validUntil = validUntil;
    this.scheduleExpiry(lock);
  }

  /** Called when the holder first reads its signal: from then on, a lease running out aborts it. */
  arm(lock: TrackedLock): void {
    if (!lock.released && performance.now() >= lock.validUntil) {
      this.lost(lock, `lease of ${lock.leaseMs} ms ran out while held`);
      return;
    }
    this.scheduleExpiry(lock);
  }

  /**
   * The check before a write: local state and the monotonic clock only, no round trip. Each refusal is
   * counted when it happens; the first one also marks the lock lost (aborts the signal, counts it lost,
   * calls onLockLost), so the loss is on the metrics before the write, not at release.
   */
  assertValid(lock: TrackedLock, marginMs: number): void {
    if (lock.lostError) {
      this.metrics.validityRefused.inc();
      throw lock.lostError;
    }
    if (lock.released) {
      this.metrics.validityRefused.inc();
      throw new LockLostError(lock.keys, 'the lock was released');
    }
    const left = lock.validUntil - performance.now();
    if (left > marginMs) {
      return;
    }
    this.metrics.validityRefused.inc();
    this.lost(
      lock,
      left > 0
        ? `validity check: ${Math.floor(left)} ms of the lease left, under the ${marginMs} ms margin`
        : `validity check: the lease of ${lock.leaseMs} ms ran out while held`,
    );
    throw lock.lostError!;
  }

  /** Aborts the holder's signal when its lease runs out while it still holds the lock. */
  private scheduleExpiry(lock: TrackedLock): void {
    if (!lock.armed || lock.released) {
      return;
    }
    clearTimeout(lock.expiryTimer);
    const ms = Math.max(0, lock.validUntil - performance.now());
    lock.expiryTimer = setTimeout(
      () => this.lost(lock, `lease of ${lock.leaseMs} ms ran out while held`),
      ms,
    );
    lock.expiryTimer.unref();
  }

  lost(lock: TrackedLock, reason: string, evenIfReleased = false): void {
    if ((lock.released && !evenIfReleased) || lock.lostError) {
      return;
    }
    this.watchdog.remove(lock);
    clearTimeout(lock.expiryTimer);
    this.forget(lock); // no longer ours; release() still answers NOT_HELD with its one owner-checked call
    this.metrics.lost.inc({ reason: reason.split(':')[0].split(' ').slice(0, 2).join('_') });
    this.logger.warn(`lock lost on ${lock.keys.join(', ')}: ${reason}`);
    lock.lostError = new LockLostError(lock.keys, reason);
    lock.controller.abort(lock.lostError);
    try {
      this.onLockLost?.({ keys: lock.keys, reason });
    } catch (e) {
      this.logger.error(`onLockLost hook threw: ${String(e)}`);
    }
  }
}
