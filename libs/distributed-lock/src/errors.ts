/**
 * The lock library's errors. Each carries a stable `code` (an app's one error filter maps codes or classes
 * to transport answers; the library never speaks HTTP).
 */
export enum LockErrorCode {
  /** Someone else holds the lock and the wait ran out. */
  Busy = 'LOCK_BUSY',
  /** Redis refused or could not be reached; the call did not take effect. */
  BackendUnavailable = 'LOCK_BACKEND_UNAVAILABLE',
  /** Redis did not answer in time: the call may still run there (see LockOutcomeUnknownError). */
  OutcomeUnknown = 'LOCK_OUTCOME_UNKNOWN',
  /** The lease is no longer known to be ours. */
  Lost = 'LOCK_LOST',
  /** A key function produced a key that would merge unrelated locks. */
  InvalidKey = 'LOCK_INVALID_KEY',
}

/** The lock is held by someone else and `waitMs` ran out. HTTP layers map it to 409/503 + Retry-After. */
export class LockNotAcquiredError extends Error {
  readonly code = LockErrorCode.Busy;

  constructor(
    readonly keys: string[],
    readonly waitedMs: number,
    /** A hint from the holder's remaining lease: when trying again is likely to succeed. */
    readonly retryAfterMs: number,
  ) {
    super(`lock busy: ${keys.join(', ')} (waited ${Math.round(waitedMs)} ms)`);
    this.name = 'LockNotAcquiredError';
  }
}

/** Redis did not answer (down, timed out, refused). Never a silent success. */
export class LockBackendError extends Error {
  readonly code: LockErrorCode = LockErrorCode.BackendUnavailable;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LockBackendError';
  }
}

/**
 * The call left the client but no answer came back (a client-side timeout, a connection cut mid-call):
 * Redis may have run it, or may run it later from its input buffer. What the library does about it:
 * - acquire: the caller does not hold the lock. The library at once sends an owner-checked release for the
 *   owner token of that attempt; on the same connection it runs right after the late acquire, so the orphan
 *   lives no longer than the acquire's delay. If that release cannot be sent, the lease bounds the orphan.
 * - release: the key is gone, or expires with its lease (renewal has stopped).
 * - extend: the lease in Redis may be longer than the handle knows; the handle keeps its older, shorter
 *   validity (safe side).
 * A subclass of LockBackendError, so code mapping "Redis unavailable" keeps working.
 */
export class LockOutcomeUnknownError extends LockBackendError {
  override readonly code = LockErrorCode.OutcomeUnknown;

  constructor(
    readonly operation: 'acquire' | 'extend' | 'release',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LockOutcomeUnknownError';
  }
}

/**
 * The lease was lost while the protected work ran (renewal refused or failed past the lease), or is too
 * close to its end to write safely (`assertValid()`).
 */
export class LockLostError extends Error {
  readonly code = LockErrorCode.Lost;

  constructor(
    readonly keys: readonly string[],
    readonly reason: string,
  ) {
    super(`lock lost: ${keys.join(', ')}: ${reason}`);
    this.name = 'LockLostError';
  }
}

/**
 * A section's owner-checked write (HeldLock.ownership) found the lock not its own when it ran, and so
 * changed nothing. The section throws it (its store answered so); a pipelined section that throws it runs
 * again the usual way, whatever its grant said: the write may have reached Redis before the acquire (on a
 * Cluster, a script sent again after a failover). Elsewhere it is what it says: a lost lock.
 */
export class LockNotOwnedError extends LockLostError {
  constructor(keys: readonly string[]) {
    super(keys, 'the lock was not this holder’s when its write ran');
    this.name = 'LockNotOwnedError';
  }
}

/** A key function produced something that would silently merge unrelated locks. */
export class InvalidLockKeyError extends Error {
  readonly code = LockErrorCode.InvalidKey;

  constructor(message: string) {
    super(message);
    this.name = 'InvalidLockKeyError';
  }
}
