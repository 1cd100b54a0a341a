import { AsyncLocalStorage } from 'node:async_hooks';
import type { HeldLock } from './held-lock';

/**
 * The lock of the @DistributedLock method (or runExclusive callback) that is running: the whole call,
 * `await`s included, and what it starts (an AsyncLocalStorage follows the call's promises and callbacks).
 * Nested locked calls see their own lock; the outer one's again once they return.
 */
const scope = new AsyncLocalStorage<HeldLock>();

/** Runs `fn` with `handle` as currentLock() for the whole of its call. */
export function runInLockScope<T>(handle: HeldLock, fn: () => T): T {
  return scope.run(handle, fn);
}

/** Asked for outside a locked call. */
export class LockScopeError extends Error {
  constructor() {
    super('currentLock() is only known inside a @DistributedLock method or runExclusive callback');
    this.name = 'LockScopeError';
  }
}

/** The lock of the locked call running now; LockScopeError outside any. */
export function currentLock(): HeldLock {
  const lock = scope.getStore();
  if (lock === undefined) {
    throw new LockScopeError();
  }
  return lock;
}
