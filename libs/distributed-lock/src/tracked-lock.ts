import type { LockLostError } from './errors';
import type { HeldLock, LockOwnership } from './held-lock';

/**
 * What a held lock asks of whoever tracks it. Declared here, implemented by the service: the dependency
 * points one way (the service knows TrackedLock; TrackedLock knows only this).
 */
export interface TrackedLockHost {
  release(lock: TrackedLock): Promise<'RELEASED' | 'NOT_HELD'>;
  letGoInScript<T>(lock: TrackedLock, lastWrite: Promise<T>, letGo: (answer: T) => boolean): Promise<T>;
  extend(lock: TrackedLock, leaseMs: number): Promise<boolean>;
  /** The holder read its signal: from now on a lease running out aborts it. */
  arm(lock: TrackedLock): void;
  /** Throws LockLostError unless the lease is ours for at least `marginMs` more. */
  assertValid(lock: TrackedLock, marginMs: number): void;
}

/** One acquisition: its keys, owner token and lease bookkeeping (on the monotonic clock). */
export class TrackedLock implements HeldLock {
  readonly controller = new AbortController();
  /**
   * Why the lock was lost, once it is (LeaseTracker.lost, which also aborts the signal with it). Checked
   * instead of `controller.signal.aborted`: reading `signal` makes Node build the AbortSignal (an
   * EventTarget), which a short seat lock that never reads its signal does not need.
   */
  lostError?: LockLostError;
  released = false;
  /**
   * Its last write was sent to let go of it in its own script (HeldLock.letGoInScript): a release that finds
   * its keys gone is then that script's doing (or the lease's), not a lock lost while held.
   */
  letGoSent = false;
  armed = false;
  /** Monotonic time before which the lease is known to be ours (conservative: measured from the send). */
  validUntil: number;
  expiryTimer?: NodeJS.Timeout;
  /**
   * A pipelined acquisition's answer while it is on its way (pipelined-acquire.ts): true once Redis
   * granted it, false when the keys were busy; rejects when the acquire failed. Unset for a lock
   * acquired the usual way (granted before its holder ran).
   */
  grant?: Promise<boolean>;

  constructor(
    private readonly host: TrackedLockHost,
    readonly keys: readonly string[],
    readonly redisKeys: readonly string[],
    readonly owner: string,
    /** 0 until a pipelined acquisition is granted (HeldLock.fencingToken). */
    public fencingToken: number,
    public acquiredAt: number,
    readonly leaseMs: number,
    readonly watchdog: boolean,
    sentAt: number,
    /** Default safety margin of assertValid(). */
    readonly marginMs: number,
  ) {
    this.validUntil = sentAt + leaseMs;
  }

  get ownership(): LockOwnership {
    return { keys: this.redisKeys, owner: this.owner };
  }

  /**
   * Armed on first read: a holder that never looks at its signal costs no timer (the hot path of
   * short seat locks). Read after the lease ran out, it is already aborted.
   */
  get signal(): AbortSignal {
    if (!this.armed) {
      this.armed = true;
      this.host.arm(this);
    }
    return this.controller.signal;
  }

  assertValid(options?: { marginMs?: number }): void {
    this.host.assertValid(this, options?.marginMs ?? this.marginMs);
  }

  release(): Promise<'RELEASED' | 'NOT_HELD'> {
    return this.host.release(this);
  }

  letGoInScript<T>(lastWrite: Promise<T>, letGo: (answer: T) => boolean): Promise<T> {
    return this.host.letGoInScript(this, lastWrite, letGo);
  }

  extend(leaseMs: number): Promise<boolean> {
    return this.host.extend(this, leaseMs);
  }
}
