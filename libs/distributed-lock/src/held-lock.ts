/**
 * What a store script needs to check that a lock is held by this acquisition, in Redis, at the moment the
 * script runs: the lock's keys (as its own scripts name them: the client adds its keyPrefix when they are
 * passed as KEYS) and the owner token each of them holds as its string value while the lock is ours.
 * LOCK_OWNED_LUA_FILE is that check.
 */
export interface LockOwnership {
  readonly keys: readonly string[];
  readonly owner: string;
}

/**
 * What an acquisition gives its holder: the keys, the fencing token, a signal that aborts if the lease
 * is lost, and owner-checked release/extend. One handle per acquisition, with its own random owner token,
 * so two concurrent calls in one process are two different owners.
 */
export interface HeldLock {
  readonly keys: readonly string[];
  /**
   * Pass it to the store so it can reject a stale holder's write. It increases per hash tag for as long as
   * Redis keeps the tag's counter (`fenceKey`); a counter lost with Redis's data (a restart without
   * persistence, a flush, an eviction) starts again at 1, so a store should also compare a token with the
   * counter (a token above it predates the loss) and raise the counter to the highest token it has seen.
   * 0 in a pipelined section (RunOptions.pipelined), whose grant is not known yet when it writes: its
   * store checks `ownership` instead, and may take the counter's value as the token (the lock being
   * ours at that moment, no later holder can have a lower one). Set once the grant has answered; the
   * counter may have moved past it by the time the section's write ran (another key of the same tag), so
   * a later fenced write of the section should use the token its store recorded, not this one.
   */
  readonly fencingToken: number;
  /** For a store script that checks the lock is ours when it runs (see LockOwnership). */
  readonly ownership: LockOwnership;
  /** Aborted (with a LockLostError as reason) when the lease is lost while held. */
  readonly signal: AbortSignal;
  /** performance.now() when the lock was granted (for a pipelined section: when it was sent, until granted). */
  readonly acquiredAt: number;
  /**
   * Call right before a write the lock protects: throws LockLostError when the lease is not ours for at
   * least `marginMs` more on the monotonic clock (default: the module's validityMarginMs, else 1 % of the
   * lease + 2 ms, Redlock's clock-drift allowance), when the signal was aborted, or after release. A
   * refusal is counted at once (distributed_lock_validity_refused_total, and distributed_lock_lost_total
   * the first time), before any write. No round trip: a process paused past its lease learns it here.
   * It narrows the window but cannot close it (a pause between this check and the write): the store's
   * fencing-token check is the guard that holds in every case.
   */
  assertValid(options?: { marginMs?: number }): void;
  /** One round trip, never retried: NOT_HELD when the lease had already expired (or was taken over). */
  release(): Promise<'RELEASED' | 'NOT_HELD'>;
  /**
   * The section's last write lets go of the lock itself: its store script checked `ownership`
   * (LOCK_OWNED_LUA_FILE's lock_owned) and deleted the lock keys (lock_let_go) in the same command, so no
   * release is sent: one command less per section. `letGo(answer)` tells from the write's answer
   * whether its script did (false when it refused because the lock was not this one's). When it did, the
   * lock is done here (no longer tracked, this process's waiters on its keys woken). When it did not, or the
   * write failed, the lock is released as usual before this settles (not for a pipelined acquire that did
   * not take the lock: nothing is ours). Resolves or rejects as `lastWrite` does.
   */
  letGoInScript<T>(lastWrite: Promise<T>, letGo: (answer: T) => boolean): Promise<T>;
  /** Owner-checked; false when the lock is no longer ours. */
  extend(leaseMs: number): Promise<boolean>;
}
