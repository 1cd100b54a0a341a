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
