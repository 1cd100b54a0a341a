import { AsyncLocalStorage } from 'node:async_hooks';
import type { LockHandle } from './lock-handle';

/**
 * The lock held by the innermost running @DistributedLock method. AsyncLocalStorage.run (never
 * enterWith) scopes it to that call and what it awaits, in HTTP handlers, cron jobs and Kafka handlers alike.
 */
export const lockContext = new AsyncLocalStorage<LockHandle>();

export function currentLock(): LockHandle | undefined {
  return lockContext.getStore();
}
