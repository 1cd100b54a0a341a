import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BusyWait } from './contention';
import { DISTRIBUTED_LOCK_OPTIONS } from './distributed-lock.module-definition';
import type { AcquireOptions, DistributedLockModuleOptions, RunOptions } from './distributed-lock.options';
import { LockBackendError, LockNotAcquiredError, LockNotOwnedError } from './errors';
import type { HeldLock } from './held-lock';
import { HeldLockOps } from './held-lock-ops';
import { LeaseTracker } from './lease-tracker';
import { runInLockScope } from './lock-context';
import { fenceKey, lockKey, normalizeKeys } from './lock-keys';
import { LockMetrics } from './lock-metrics';
import { lockCallError, outcomeUnknown } from './lock-call-error';
import { LockScripts } from './lock-scripts';
import { LockWaiters } from './lock-waiters';
import { PipelinedAcquireDeps, sendPipelinedAcquire } from './pipelined-acquire';
import { renewWatched } from './renewal';
import { TrackedLock } from './tracked-lock';

/** runPipelined's answer when its acquire found the lock busy: the section must run again. */
const PIPELINED_BUSY = Symbol('pipelined-busy');

/** At most one "key without expiry" warning per this long: a periodic job may meet one every tick. */
const NO_EXPIRY_WARN_EVERY_MS = 60_000;

/**
 * Redis locks: SET-NX-PX semantics in Lua with a random owner token per acquisition, owner-checked
 * release and extend, a fencing token per hash tag, a batched watchdog, and typed errors that fail fast.
 * Hot path: one EVALSHA to acquire, one to release. What a held lock does (release, extend) lives in
 * HeldLockOps, lease bookkeeping in LeaseTracker, the watchdog's batch in renewal.ts, the scripts in
 * LockScripts.
 */
@Injectable()
export class DistributedLockService implements OnApplicationShutdown {
  private readonly logger = new Logger('DistributedLock');
  private readonly scripts: LockScripts;
  private readonly prefix: string;
  private readonly watchdogLeaseMs: number;
  private readonly leases: LeaseTracker;
  private readonly waiters = new LockWaiters();
  private lastNoExpiryWarning = -Infinity;
  /** Set when shutdown begins: no acquire is sent after it, and a grant that arrives after it is given back. */
  private closing = false;
  /** Acquire calls on the wire: shutdown waits for them, so none leaves a lock it no longer tracks. */
  private acquiresInFlight = 0;
  /** Shutdown's wait for acquiresInFlight to reach 0 (a list: shutdown may be called more than once). */
  private readonly onAcquiresSettled: (() => void)[] = [];
  private readonly pipelining: PipelinedAcquireDeps;
  private readonly ops: HeldLockOps;
  readonly metrics: LockMetrics;

  constructor(@Inject(DISTRIBUTED_LOCK_OPTIONS) private readonly options: DistributedLockModuleOptions) {
    this.prefix = options.keyPrefix ?? 'lock:';
    this.watchdogLeaseMs = options.watchdogLeaseMs ?? 30_000;
    this.metrics = new LockMetrics(options.registry, () => this.leases.size);
    this.scripts = new LockScripts(options.redis);
    // read this.leases at each tick (it exists by then): the tracker owns the watchdog that calls this
    const renew = (locks: TrackedLock[]) =>
      renewWatched(locks, {
        scripts: this.scripts,
        leases: this.leases,
        metrics: this.metrics,
        leaseMs: this.watchdogLeaseMs,
      });
    this.leases = new LeaseTracker(
      this.metrics,
      this.logger,
      options.onLockLost,
      this.watchdogLeaseMs,
      renew,
      this.waiters,
    );
    this.ops = new HeldLockOps(this.scripts, this.leases, this.waiters, this.logger);
    this.pipelining = {
      host: this.ops,
      scripts: this.scripts,
      leases: this.leases,
      metrics: this.metrics,
      inFlight: { begin: () => this.acquiresInFlight++, settled: () => this.acquireSettled() },
    };
  }

  /** Takes the lock (all keys or none), waiting up to waitMs. Throws LockNotAcquiredError or LockBackendError. */
  async acquire(keysIn: string | readonly string[], opts: AcquireOptions = {}): Promise<HeldLock> {
    const keys = normalizeKeys(keysIn);
    const useWatchdog = opts.leaseMs === undefined && this.options.defaultLeaseMs === undefined;
    const leaseMs = Math.round(opts.leaseMs ?? this.options.defaultLeaseMs ?? this.watchdogLeaseMs);
    if (!(leaseMs > 0)) {
      throw new RangeError(`leaseMs must be a positive number of milliseconds, got ${opts.leaseMs}`);
    }
    const waitMs = Math.max(0, opts.waitMs ?? this.options.defaultWaitMs ?? 0);
    const redisKeys = keys.map((k) => lockKey(this.prefix, k));
    const fence = fenceKey(this.prefix, keys[0]);
    const started = performance.now();
    let busy: BusyWait | undefined; // made at the first busy attempt: the uncontended path never needs it
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      this.assertOpen(keys);
      // randomUUID draws from an entropy cache: far cheaper per call than randomBytes(16)
      const owner = randomUUID();
      const sentAt = performance.now();
      let reply: [number, number];
      this.acquiresInFlight++;
      try {
        reply = await this.scripts.acquire(fence, redisKeys, owner, leaseMs);
        if (this.closing && reply[0] === 1) {
          // shutdown began while this grant was on its way: nobody would release it after shutdown
          await this.scripts.release(redisKeys, owner).catch(() => 0);
          reply = [0, 0];
        }
      } catch (e) {
        if (outcomeUnknown(e)) {
          // The script may run later (a timeout: it waits in Redis's input buffer). Undo it by owner token:
          // sent on the same connection, this release runs right after it. Not awaited: the caller hears
          // now; if the release cannot be sent either, the lease bounds the orphan.
          this.metrics.acquisitions.inc({ result: 'outcome_unknown' });
          void this.scripts.release(redisKeys, owner).catch(() => 0);
        } else {
          this.metrics.acquisitions.inc({ result: 'error' });
        }
        throw lockCallError('acquire', keys, e);
      } finally {
        this.acquireSettled();
      }
      this.assertOpen(keys);
      const now = performance.now();
      if (reply[0] === 1) {
        // antirez's check: a grant that arrives after the lease could have run out is worth nothing
        if (now - sentAt < leaseMs) {
          this.metrics.acquisitions.inc({ result: 'acquired' });
          this.metrics.waitSeconds.observe((now - started) / 1000);
          const margin = this.marginOf(leaseMs);
          return this.leases.track(
            new TrackedLock(
              this.ops,
              keys,
              redisKeys,
              owner,
              Number(reply[1]),
              now,
              leaseMs,
              useWatchdog,
              sentAt,
              margin,
            ),
          );
        }
        this.metrics.acquisitions.inc({ result: 'expired_on_arrival' });
        await this.scripts.release(redisKeys, owner).catch(() => 0);
        this.waiters.wake(redisKeys);
      } else {
        this.metrics.contention.inc();
      }
      // -1: a key without expiry holds it for good; our own lease is the only sensible retry hint
      const noExpiry = reply[0] === 0 && Number(reply[1]) === -1;
      const holderTtl = reply[0] === 1 ? 0 : noExpiry ? leaseMs : Number(reply[1]);
      busy ??= new BusyWait(keys, redisKeys, started, waitMs, opts, this.waiters, this.metrics);
      const gaveUp = await busy.afterBusy(attempt, holderTtl);
      if (gaveUp) {
        if (noExpiry) {
          this.warnNoExpiry(keys);
        }
        throw gaveUp;
      }
    }
  }

  /**
   * The key of the fencing counter that locks on `key` draw their tokens from (one per hash tag), without
   * the client's keyPrefix (ioredis adds it). A store that checks tokens declares it as a script KEY: it
   * shares the tag's slot, so the script can compare a token with the counter atomically.
   */
  fenceKey(key: string): string {
    return fenceKey(this.prefix, key);
  }

  /**
   * The Redis key a lock on `key` is kept in, without the client's keyPrefix: for a store's script that
   * must see whether a lock is held (a key of the same slot) without taking it.
   */
  lockKey(key: string): string {
    return lockKey(this.prefix, key);
  }

  /** One attempt, no waiting: the handle, or null when someone else holds it. */
  async tryAcquire(
    keys: string | readonly string[],
    opts: { leaseMs?: number } = {},
  ): Promise<HeldLock | null> {
    try {
      return await this.acquire(keys, { ...opts, waitMs: 0 });
    } catch (e) {
      if (e instanceof LockNotAcquiredError) {
        return null;
      }
      throw e;
    }
  }

  /**
   * Runs fn while holding the lock and releases it after, whatever happens. fn's own error always wins:
   * a failed release is logged, never thrown over it.
   */
  async runExclusive<T>(
    keys: string | readonly string[],
    opts: RunOptions,
    fn: (lock: HeldLock) => Promise<T>,
  ): Promise<T | undefined> {
    if (opts.pipelined) {
      const first = await this.runPipelined(keys, opts, fn);
      if (first !== PIPELINED_BUSY) {
        return first.value;
      }
      // busy: the section's owner-checked writes were refused; now wait for the lock as usual
    }
    let handle: TrackedLock;
    try {
      // acquire's handles are HeldLocks (typed HeldLock for its callers)
      handle = (await this.acquire(
        keys,
        opts.onContention === 'skip' ? { ...opts, waitMs: opts.waitMs ?? 0 } : opts,
      )) as TrackedLock;
    } catch (e) {
      if (e instanceof LockNotAcquiredError && opts.onContention === 'skip') {
        this.metrics.acquisitions.inc({ result: 'skipped' });
        return undefined;
      }
      throw e;
    }
    try {
      return await runInLockScope(handle, () => fn(handle));
    } finally {
      // a section that let go itself (release, letGoInScript) is done: release() would answer NOT_HELD
      if (!handle.released) {
        await this.ops.releaseOrWarn(handle);
      }
    }
  }

  /**
   * One pipelined attempt (RunOptions.pipelined): the acquire goes out, then fn starts at once. Once both
   * have settled, the grant decides: taken, fn's outcome is the answer (unless fn threw LockNotOwnedError:
   * its write ran before the acquire); busy, its writes were refused in Redis; in both cases PIPELINED_BUSY
   * says to run it again the usual way. Failed, the acquire's error is thrown.
   */
  private async runPipelined<T>(
    keysIn: string | readonly string[],
    opts: RunOptions,
    fn: (lock: HeldLock) => Promise<T>,
  ): Promise<{ value: T } | typeof PIPELINED_BUSY> {
    const keys = normalizeKeys(keysIn);
    const leaseMs = Math.round(opts.leaseMs ?? this.options.defaultLeaseMs ?? NaN);
    if (!(leaseMs > 0)) {
      throw new RangeError(`a pipelined section needs a fixed lease (leaseMs), got ${opts.leaseMs}`);
    }
    opts.signal?.throwIfAborted();
    this.assertOpen(keys);
    const margin = this.marginOf(leaseMs);
    const redisKeys = keys.map((k) => lockKey(this.prefix, k));
    const lock = sendPipelinedAcquire(
      this.pipelining,
      keys,
      redisKeys,
      fenceKey(this.prefix, keys[0]),
      leaseMs,
      margin,
    );
    let outcome: { value: T } | { error: unknown };
    try {
      outcome = { value: await runInLockScope(lock, () => fn(lock)) };
    } catch (error) {
      outcome = { error };
    }
    const granted = await lock.grant!; // throws the acquire's own error
    if (granted && !lock.released) {
      await this.ops.releaseOrWarn(lock);
    }
    // busy, or its write refused although granted (it reached Redis before the acquire): nothing written
    if (!granted || ('error' in outcome && outcome.error instanceof LockNotOwnedError)) {
      return PIPELINED_BUSY;
    }
    if ('error' in outcome) {
      throw outcome.error;
    }
    return outcome;
  }

  /**
   * Gives back every lock this process holds. An acquire already sent is waited for first: a grant that
   * arrives now is released by acquire() (which throws), or, for a pipelined section, tracked and so
   * released here; nothing is held once this returns.
   */
  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.acquiresInFlight > 0) {
      await new Promise<void>((resolve) => this.onAcquiresSettled.push(resolve));
    }
    this.leases.stop();
    await Promise.allSettled(this.leases.all().map((l) => this.ops.release(l)));
  }

  /** How many locks this process holds now (for tests and diagnostics). */
  get heldCount(): number {
    return this.leases.size;
  }

  private acquireSettled(): void {
    if (--this.acquiresInFlight === 0) {
      this.onAcquiresSettled.splice(0).forEach((resolve) => resolve());
    }
  }

  /** assertValid's default margin: validityMarginMs, else 1 % of the lease + 2 ms. */
  private marginOf(leaseMs: number): number {
    return this.options.validityMarginMs ?? Math.round(leaseMs / 100) + 2;
  }

  private assertOpen(keys: readonly string[]): void {
    if (this.closing) {
      throw new LockBackendError(`lock service is shutting down: not acquiring ${keys.join(', ')}`);
    }
  }

  private warnNoExpiry(keys: readonly string[]): void {
    const now = performance.now();
    if (now - this.lastNoExpiryWarning >= NO_EXPIRY_WARN_EVERY_MS) {
      this.lastNoExpiryWarning = now;
      this.logger.warn(
        `lock ${keys.join(', ')} is held by a key without expiry (set without PX, or PERSISTed): ` +
          'it never frees by itself; delete it once its holder is known to be gone',
      );
    }
  }
}
