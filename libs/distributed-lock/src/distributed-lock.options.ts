import type Redis from 'ioredis';
import type { Registry } from 'prom-client';

export interface DistributedLockModuleOptions {
  /**
   * An ioredis client (it may carry its own keyPrefix). Bound its commandTimeout: that bounds every call
   * here, and a call that times out is answered with LockOutcomeUnknownError (see errors.ts).
   */
  redis: Redis;
  /** Prefix of lock and fence keys, after the client's own keyPrefix. Default 'lock:'. */
  keyPrefix?: string;
  /** Lease used when a caller gives none and does not want the watchdog. Default: the watchdog is used. */
  defaultLeaseMs?: number;
  /** Lease kept alive by the watchdog (renewed every third of it). Default 30 000. */
  watchdogLeaseMs?: number;
  /** How long to wait for a busy lock when the caller does not say. Default 0 (try once). */
  defaultWaitMs?: number;
  /**
   * Safety margin of `assertValid()`: how much of the lease must be left for a write to go ahead.
   * Default 1 % of the lease + 2 ms (Redlock's allowance for clock drift between Redis and this process).
   */
  validityMarginMs?: number;
  /** Metrics registry; default prom-client's global one. */
  registry?: Registry;
  /** Called when a held lock is lost (renewal refused, failed past the lease, or a refused validity check). */
  onLockLost?: (info: { keys: readonly string[]; reason: string }) => void;
}

/** What one busy attempt tells the contention handler. */
export interface LockBusy {
  /** The keys asked for (normalized: sorted, de-duplicated). */
  readonly keys: readonly string[];
  /** 1 for the first busy attempt, 2 for the next ... */
  readonly attempt: number;
  /** Since the acquire began, ms. */
  readonly waitedMs: number;
  /** What is left of the wait budget, ms; 0: this was the last attempt, LockNotAcquiredError follows. */
  readonly remainingMs: number;
  /** The holder's remaining lease (the longest among the held keys), ms. */
  readonly holderTtlMs: number;
}

/**
 * Called after each busy attempt, the last one included, before waiting (or giving up). Throw to stop
 * waiting: the error goes to the acquire's caller as it is and nothing is locked (e.g. a seat lock's
 * caller reads the seats and answers "taken" while another request is still taking them). Return to
 * keep waiting. It runs without the lock: whatever it reads may change the next moment.
 */
export type ContentionHandler = (busy: LockBusy) => void | Promise<void>;

export interface AcquireOptions {
  /** Fixed lease: the lock simply expires after it. Omit to have the watchdog keep it alive while held. */
  leaseMs?: number;
  /** How long to wait for a busy lock before LockNotAcquiredError. */
  waitMs?: number;
  /**
   * How long to wait in all while the holder is a lock of this process; default (and at least) waitMs.
   * Such a holder is work already under way here, whose release wakes the waiter at once: only this
   * process's own load delays it. A caller may allow it more than an unknown holder elsewhere (e.g. the
   * lease, after which the holder's keys are gone whatever it does).
   */
  localWaitMs?: number;
  /** Asked after each busy attempt; it may end the wait by throwing (see ContentionHandler). */
  onBusy?: ContentionHandler;
  signal?: AbortSignal;
}

export interface RunOptions extends AcquireOptions {
  /** 'skip': if the lock is busy, return undefined without running (periodic jobs). Default 'wait'. */
  onContention?: 'wait' | 'skip';
  /**
   * Start the section in the same tick as its acquire, before Redis answers (pipelined-acquire.ts): one
   * round trip less, and the lock held only while the section's write runs. Only for a section whose
   * writes are all checked against `lock.ownership` by their store's script (its fencingToken is 0 until
   * the grant), so that they change nothing when the acquire found the lock busy, and which throws
   * LockNotOwnedError when its store refused a write for that. Then (busy, or that error) the section's
   * outcome is discarded and it runs again after an acquire the usual way (waiting, asking onBusy), with
   * its token known. Needs a fixed lease.
   */
  pipelined?: boolean;
}
