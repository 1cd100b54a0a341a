/**
 * What an acquisition gives its holder: the keys, the fencing token, a signal that aborts if the lease
 * is lost, and owner-checked release/extend. One handle per acquisition, with its own random owner token,
 * so two concurrent calls in one process are two different owners.
 */
export interface LockHandle {
  readonly keys: readonly string[];
  /** Strictly increasing per hash tag: pass it to the store so it can reject a stale holder's write. */
  readonly fencingToken: number;
  /** Aborted (with a LockLostError as reason) when the lease is lost while held. */
  readonly signal: AbortSignal;
  /** performance.now() when the lock was granted. */
  readonly acquiredAt: number;
  /** One round trip, never retried: NOT_HELD when the lease had already expired (or was taken over). */
  release(): Promise<'RELEASED' | 'NOT_HELD'>;
  /** Owner-checked; false when the lock is no longer ours. */
  extend(leaseMs: number): Promise<boolean>;
}
