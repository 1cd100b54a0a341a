/**
 * A write was applied on the Redis master but fewer replicas than REDIS_WAIT_REPLICAS confirmed it
 * within REDIS_WAIT_TIMEOUT_MS (Redis `WAIT`). The change is in place on the master and will normally
 * reach the replicas; it is not acknowledged to the client because a failover right now could lose it.
 * The app answers 503 with Retry-After: retrying the same call (same Idempotency-Key) is safe.
 */
export class ReplicaAckTimeoutError extends Error {
  constructor(
    readonly action: string,
    readonly wanted: number,
    readonly acknowledged: number,
    readonly timeoutMs: number,
    /** host:port of the master that applied the write ('unknown' when the slot map had no owner). */
    readonly master = 'unknown',
  ) {
    super(
      `${action}: ${acknowledged} of ${wanted} Redis replica(s) of ${master} confirmed the write within ${timeoutMs} ms`,
    );
    this.name = 'ReplicaAckTimeoutError';
  }
}
