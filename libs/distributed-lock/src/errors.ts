/** The lock is held by someone else and `waitMs` ran out. HTTP layers map it to 409/503 + Retry-After. */
export class LockNotAcquiredError extends Error {
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
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LockBackendError';
  }
}

/** The lease was lost while the protected work ran (renewal refused or failed past the lease). */
export class LockLostError extends Error {
  constructor(
    readonly keys: readonly string[],
    readonly reason: string,
  ) {
    super(`lock lost: ${keys.join(', ')}: ${reason}`);
    this.name = 'LockLostError';
  }
}

/** A key function produced something that would silently merge unrelated locks. */
export class InvalidLockKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidLockKeyError';
  }
}
