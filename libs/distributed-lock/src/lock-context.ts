import type { HeldLock } from './held-lock';

/**
 * The lock of the @DistributedLock method (or runExclusive callback) whose synchronous start is running.
 *
 * Why not AsyncLocalStorage: on Node 20 one AsyncLocalStorage in use makes every promise of the process
 * pay init/before/after hooks, which cost the seat API about 30 % of its CPU per hold in bench:http, for
 * a value that every caller reads once, at the top.
 * So the scope is the synchronous part of the call: `runInLockScope` sets the handle, calls the function
 * and restores what was there before it returns its promise. Code after an `await` runs outside that
 * part (the microtask starts with an empty stack), where `currentLock()` throws instead of answering
 * with another call's lock: capture it in a const before the first await.
 */
let current: HeldLock | undefined;

/** Runs `fn` with `handle` as currentLock() for its synchronous part (nesting restores the outer one). */
export function runInLockScope<T>(handle: HeldLock, fn: () => T): T {
  const outer = current;
  current = handle;
  try {
    return fn();
  } finally {
    current = outer;
  }
}

/** Asked for outside the synchronous start of a locked call. */
export class LockScopeError extends Error {
  constructor() {
    super(
      'currentLock() is only known in the synchronous start of a @DistributedLock method or runExclusive ' +
        'callback: read it into a const before the first await',
    );
    this.name = 'LockScopeError';
  }
}

/** The lock of the locked call whose synchronous start is running; LockScopeError anywhere else. */
export function currentLock(): HeldLock {
  if (current === undefined) {
    throw new LockScopeError();
  }
  return current;
}
