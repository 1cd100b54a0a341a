import type { Logger } from '@nestjs/common';
import type { LeaseTracker } from './lease-tracker';
import { lockCallError } from './lock-call-error';
import type { LockScripts } from './lock-scripts';
import type { LockWaiters } from './lock-waiters';
import type { TrackedLock, TrackedLockHost } from './tracked-lock';

/**
 * The owner-checked operations a held lock delegates to (TrackedLockHost): its two ways to let go
 * (release; letGoInScript, no release sent: the write's own script deletes the keys), extend, and the
 * lease checks. One per DistributedLockService.
 */
export class HeldLockOps implements TrackedLockHost {
  constructor(
    private readonly scripts: LockScripts,
    private readonly leases: LeaseTracker,
    private readonly waiters: LockWaiters,
    private readonly logger: Logger,
  ) {}

  /**
   * Owner-checked delete in one round trip; never retried, so an expired lock costs one call, not a storm.
   * On a timeout (LockOutcomeUnknownError) the delete may still run; if not, the lease bounds the key
   * (renewal has stopped).
   */
  async release(lock: TrackedLock): Promise<'RELEASED' | 'NOT_HELD'> {
    if (lock.released) {
      return 'NOT_HELD';
    }
    this.leases.untrack(lock); // synchronously: no renewal can start for it from here on
    let n: number;
    try {
      n = await this.scripts.release(lock.redisKeys, lock.owner);
    } catch (e) {
      throw lockCallError('release', lock.keys, e);
    } finally {
      // the keys are gone from Redis now (or their fate is unknown): whoever waits here retries at once
      this.waiters.wake(lock.redisKeys);
    }
    if (n === lock.redisKeys.length) {
      return 'RELEASED';
    }
    if (lock.letGoSent) {
      // its last write's script deleted the keys: a write whose answer was lost (a timeout), or a shutdown
      // that released the lock before that answer was read. Nothing was lost while held
      return 'NOT_HELD';
    }
    if (lock.grant) {
      if (!(await lock.grant.catch(() => false))) {
        return 'NOT_HELD'; // a pipelined acquire that did not take the lock: nothing was ours to lose
      }
      // Granted, yet the release sent along found nothing: it may have run before the acquire (on a
      // Cluster a script missing from a new master's cache is sent again after the rest of the batch).
      // The grant has answered, so the acquire has run: once more, or its keys stay for the whole lease.
      n += await this.scripts.release(lock.redisKeys, lock.owner).catch(() => 0);
      if (n === lock.redisKeys.length) {
        return 'RELEASED';
      }
    }
    this.leases.lost(lock, 'the lease had run out before release', true);
    return 'NOT_HELD';
  }

  /** See HeldLock.letGoInScript: the write's own script let go of the lock, or it is released here. */
  async letGoInScript<T>(
    lock: TrackedLock,
    lastWrite: Promise<T>,
    letGo: (answer: T) => boolean,
  ): Promise<T> {
    lock.letGoSent = true;
    let answer: T;
    try {
      answer = await lastWrite;
    } catch (e) {
      await this.releaseUnlessBusy(lock);
      throw e;
    }
    if (!letGo(answer)) {
      await this.releaseUnlessBusy(lock);
    } else if (!lock.released) {
      this.leases.untrack(lock);
      this.waiters.wake(lock.redisKeys); // as release() does: the keys are gone from Redis
    }
    return answer;
  }

  /**
   * release(), except for a pipelined acquire that found the lock busy or failed (waited for: it answers
   * first unless a Cluster sent it again behind the write): no key is ours, and its runner says what to do.
   */
  private async releaseUnlessBusy(lock: TrackedLock): Promise<void> {
    if (!lock.grant || (await lock.grant.catch(() => false))) {
      await this.releaseOrWarn(lock);
    }
  }

  /** Owner-checked. On a timeout the handle keeps its older validity: Redis may hold the lease longer, never shorter. */
  async extend(lock: TrackedLock, leaseMs: number): Promise<boolean> {
    if (lock.released || lock.lostError) {
      return false;
    }
    const sentAt = performance.now();
    let ok: number;
    try {
      ok = await this.scripts.extend(lock.redisKeys, lock.owner, Math.round(leaseMs));
    } catch (e) {
      throw lockCallError('extend', lock.keys, e);
    }
    if (ok !== 1) {
      this.leases.lost(lock, 'extend refused: the lock is no longer ours');
      return false;
    }
    this.leases.renewed(lock, sentAt + leaseMs);
    return true;
  }

  arm(lock: TrackedLock): void {
    this.leases.arm(lock);
  }

  assertValid(lock: TrackedLock, marginMs: number): void {
    this.leases.assertValid(lock, marginMs);
  }

  /** A release whose failure is logged, never thrown: the lease bounds the key. */
  releaseOrWarn(lock: TrackedLock): Promise<'RELEASED' | 'NOT_HELD'> {
    return lock.release().catch((e: unknown) => {
      this.logger.warn(`release of ${lock.keys.join(', ')} failed (it will expire by itself): ${String(e)}`);
      return 'NOT_HELD' as const;
    });
  }
}
