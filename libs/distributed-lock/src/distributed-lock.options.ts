import type Redis from 'ioredis';
import type { Registry } from 'prom-client';

export interface DistributedLockModuleOptions {
  /** An ioredis client (it may carry its own keyPrefix). Bound its commandTimeout: that bounds every call here. */
  redis: Redis;
  /** Prefix of lock and fence keys, after the client's own keyPrefix. Default 'lock:'. */
  keyPrefix?: string;
  /** Lease used when a caller gives none and does not want the watchdog. Default: the watchdog is used. */
  defaultLeaseMs?: number;
  /** Lease kept alive by the watchdog (renewed every third of it). Default 30 000. */
  watchdogLeaseMs?: number;
  /** How long to wait for a busy lock when the caller does not say. Default 0 (try once). */
  defaultWaitMs?: number;
  /** Metrics registry; default prom-client's global one. */
  registry?: Registry;
  /** Called when a held lock is lost (renewal refused, or failed past the lease). */
  onLockLost?: (info: { keys: readonly string[]; reason: string }) => void;
}

export const DISTRIBUTED_LOCK_OPTIONS = Symbol('DISTRIBUTED_LOCK_OPTIONS');
