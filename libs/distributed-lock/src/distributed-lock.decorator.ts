import { Inject } from '@nestjs/common';
import type { LockBusy } from './distributed-lock.options';
import { DistributedLockService } from './distributed-lock.service';
import { copyMethodMetadata } from './copy-method-metadata';

export interface DistributedLockOptions<A extends unknown[]> {
  /**
   * Builds the lock key(s) from the method's own arguments; several keys are locked all-or-none. Called
   * with the instance as `this` (a `function`, not an arrow, can read e.g. a key layout from it).
   */
  key: (this: never, ...args: A) => string | readonly string[];
  /**
   * How long to wait for a busy lock; default the module's defaultWaitMs. A function is called with the
   * instance at each call, so the value can come from injected configuration.
   */
  waitMs?: number | ((instance: never) => number);
  /** How long to wait in all while the holder is in this process (see AcquireOptions.localWaitMs). */
  localWaitMs?: number | ((instance: never) => number);
  /** Fixed lease (or a function of the instance). Omit it to have the watchdog keep the lock alive while the method runs. */
  leaseMs?: number | ((instance: never) => number);
  /**
   * 'skip': when another holder has it, return undefined without running (periodic jobs).
   * 'wait' (default): wait up to waitMs. A function: wait, but after each busy attempt call it with the
   * attempt, the instance and the method's arguments; what it throws ends the wait and is what the
   * method throws (see ContentionHandler: e.g. answer from a lock-free read that the seats are taken).
   */
  onContention?: 'wait' | 'skip' | ((busy: LockBusy, instance: never, args: A) => void | Promise<void>);
  /**
   * Start the method in the same tick as its acquire (RunOptions.pipelined): every write it makes must be
   * checked against `currentLock().ownership` by its store's script, and it may run twice (the second
   * time after a usual acquire, when the first found the lock busy). Needs a fixed leaseMs.
   */
  pipelined?: boolean;
}

/** Where the decorator parks the injected service on the instance (property injection, resolved by Nest DI). */
const SERVICE = '__distributedLockService';

type Host = { [SERVICE]?: DistributedLockService };

/**
 * Runs the method while holding a Redis lock whose key comes from its arguments. Anywhere in the call,
 * awaits included, `currentLock()` gives the fencing token and the AbortSignal that fires if the lease is
 * lost. The lock service comes from Nest DI: a class using this without DistributedLockModule fails at
 * bootstrap, naming the service.
 */
export function DistributedLock<A extends unknown[]>(options: DistributedLockOptions<A>) {
  const inject = Inject(DistributedLockService);
  return <R>(
    target: object,
    propertyKey: string | symbol,
    // the key function sees the method's leading arguments; the method may take more
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    descriptor: TypedPropertyDescriptor<(...args: [...A, ...any[]]) => Promise<R>>,
  ): void => {
    inject(target, SERVICE);
    const original = descriptor.value;
    if (typeof original !== 'function') {
      throw new TypeError(`@DistributedLock can only decorate methods (${String(propertyKey)})`);
    }
    // With onContention 'skip' the method resolves to undefined when skipped: type it `Promise<T | undefined>`.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const wrapped = async function (this: Host, ...args: [...A, ...any[]]): Promise<R> {
      const service = this[SERVICE];
      if (!service) {
        throw new Error(
          `@DistributedLock on ${target.constructor.name}.${String(propertyKey)}: DistributedLockService was not injected; ` +
            'import DistributedLockModule and let Nest create this class',
        );
      }
      const keys = options.key.apply(this as never, args as unknown as A);
      const resolve = (v: number | ((instance: never) => number) | undefined) =>
        typeof v === 'function' ? v(this as never) : v;
      const contention = options.onContention;
      const run = {
        onContention: typeof contention === 'function' ? ('wait' as const) : contention,
        onBusy:
          typeof contention === 'function'
            ? (busy: LockBusy) => contention(busy, this as never, args as unknown as A)
            : undefined,
        waitMs: resolve(options.waitMs),
        localWaitMs: resolve(options.localWaitMs),
        leaseMs: resolve(options.leaseMs),
        pipelined: options.pipelined,
      };
      return (await service.runExclusive(keys, run, () => original.apply(this, args))) as R;
    };
    Object.defineProperty(wrapped, 'name', { value: original.name });
    copyMethodMetadata(original, wrapped);
    descriptor.value = wrapped;
  };
}
