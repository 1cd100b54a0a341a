import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { DISTRIBUTED_LOCK_OPTIONS, DistributedLockModuleOptions } from './distributed-lock.options';
import { LockBackendError, LockLostError, LockNotAcquiredError } from './errors';
import { lockContext } from './lock-context';
import type { LockHandle } from './lock-handle';
import { fenceKey, hashTag, lockKey, normalizeKeys } from './lock-keys';
import { LockMetrics } from './lock-metrics';
import { ACQUIRE } from './lua/acquire.lua';
import { EXTEND, RENEW_BATCH } from './lua/extend.lua';
import { RELEASE } from './lua/release.lua';
import { Watchdog } from './watchdog';

export interface AcquireOptions {
  /** Fixed lease: the lock simply expires after it. Omit to have the watchdog keep it alive while held. */
  leaseMs?: number;
  /** How long to wait for a busy lock before LockNotAcquiredError. */
  waitMs?: number;
  signal?: AbortSignal;
}

export interface RunOptions extends AcquireOptions {
  /** 'skip': if the lock is busy, return undefined without running (periodic jobs). Default 'wait'. */
  onContention?: 'wait' | 'skip';
}

type Scripts = Record<
  'dlockAcquire' | 'dlockRelease' | 'dlockExtend' | 'dlockRenew',
  (...a: unknown[]) => Promise<unknown>
>;

/** One held lock, as the service tracks it. */
export class HeldLock implements LockHandle {
  readonly controller = new AbortController();
  released = false;
  armed = false;
  /** Monotonic time before which the lease is known to be ours (conservative: measured from the send). */
  validUntil: number;
  expiryTimer?: NodeJS.Timeout;

  constructor(
    private readonly service: DistributedLockService,
    readonly keys: readonly string[],
    readonly redisKeys: readonly string[],
    readonly owner: string,
    readonly fencingToken: number,
    readonly acquiredAt: number,
    readonly leaseMs: number,
    readonly watchdog: boolean,
    sentAt: number,
  ) {
    this.validUntil = sentAt + leaseMs;
  }

  /**
   * Armed on first read: a holder that never looks at its signal costs no timer (the hot path of
   * short seat locks). Read after the lease ran out, it is already aborted.
   */
  get signal(): AbortSignal {
    if (!this.armed) {
      this.armed = true;
      this.service.armExpiry(this);
    }
    return this.controller.signal;
  }

  release(): Promise<'RELEASED' | 'NOT_HELD'> {
    return this.service.release(this);
  }

  extend(leaseMs: number): Promise<boolean> {
    return this.service.extend(this, leaseMs);
  }
}

/**
 * Redis locks: SET-NX-PX semantics in Lua with a random owner token per acquisition, owner-checked
 * release and extend, a fencing token per hash tag, a batched watchdog, and typed errors that fail fast.
 */
@Injectable()
export class DistributedLockService implements OnApplicationShutdown {
  private readonly logger = new Logger('DistributedLock');
  private readonly redis: Redis;
  private readonly scripts: Scripts;
  private readonly prefix: string;
  private readonly watchdogLeaseMs: number;
  private readonly held = new Set<HeldLock>();
  private readonly watchdog: Watchdog;
  readonly metrics: LockMetrics;

  constructor(@Inject(DISTRIBUTED_LOCK_OPTIONS) private readonly options: DistributedLockModuleOptions) {
    this.redis = options.redis;
    this.prefix = options.keyPrefix ?? 'lock:';
    this.watchdogLeaseMs = options.watchdogLeaseMs ?? 30_000;
    this.metrics = new LockMetrics(options.registry, () => this.held.size);
    const defs = {
      dlockAcquire: ACQUIRE,
      dlockRelease: RELEASE,
      dlockExtend: EXTEND,
      dlockRenew: RENEW_BATCH,
    };
    for (const [name, lua] of Object.entries(defs)) {
      if (!(name in this.redis)) {
        this.redis.defineCommand(name, { lua }); // key count passed per call
      }
    }
    this.scripts = this.redis as unknown as Scripts;
    this.watchdog = new Watchdog(this.watchdogLeaseMs, (locks) => this.renew(locks));
  }

  /** Takes the lock (all keys or none), waiting up to waitMs. Throws LockNotAcquiredError or LockBackendError. */
  async acquire(keysIn: string | readonly string[], opts: AcquireOptions = {}): Promise<LockHandle> {
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
    for (let attempt = 0; ; attempt++) {
      opts.signal?.throwIfAborted();
      // randomUUID draws from an entropy cache: far cheaper per call than randomBytes(16)
      const owner = randomUUID();
      const sentAt = performance.now();
      let reply: [number, number];
      try {
        reply = (await this.scripts.dlockAcquire(
          redisKeys.length + 1,
          fence,
          ...redisKeys,
          owner,
          leaseMs,
        )) as [number, number];
      } catch (e) {
        this.metrics.acquisitions.inc({ result: 'error' });
        throw new LockBackendError(
          `could not reach Redis to lock ${keys.join(', ')}: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
      }
      const now = performance.now();
      if (reply[0] === 1) {
        // antirez's check: a grant that arrives after the lease could have run out is worth nothing
        if (now - sentAt >= leaseMs) {
          this.metrics.acquisitions.inc({ result: 'expired_on_arrival' });
          await this.releaseKeys(redisKeys, owner).catch(() => 0);
        } else {
          this.metrics.acquired.inc();
          this.metrics.waitSeconds.observe((now - started) / 1000);
          return this.track(
            new HeldLock(this, keys, redisKeys, owner, Number(reply[1]), now, leaseMs, useWatchdog, sentAt),
          );
        }
      } else {
        this.metrics.contention.inc();
      }
      const remaining = started + waitMs - performance.now();
      const holderTtl = reply[0] === 1 ? 0 : Number(reply[1]);
      if (remaining <= 0) {
        this.metrics.acquisitions.inc({ result: 'busy' });
        this.metrics.waitSeconds.observe((performance.now() - started) / 1000);
        throw new LockNotAcquiredError(keys, performance.now() - started, Math.max(holderTtl, 1));
      }
      // exponential backoff with jitter, never past the holder's remaining lease nor our own deadline
      const cap = Math.min(200, 5 * 2 ** attempt);
      const delay = Math.min(remaining, Math.max(1, holderTtl), cap / 2 + (Math.random() * cap) / 2);
      await sleep(delay, opts.signal);
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

  /** One attempt, no waiting: the handle, or null when someone else holds it. */
  async tryAcquire(
    keys: string | readonly string[],
    opts: { leaseMs?: number } = {},
  ): Promise<LockHandle | null> {
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
    fn: (lock: LockHandle) => Promise<T>,
  ): Promise<T | undefined> {
    let handle: LockHandle;
    try {
      handle = await this.acquire(
        keys,
        opts.onContention === 'skip' ? { ...opts, waitMs: opts.waitMs ?? 0 } : opts,
      );
    } catch (e) {
      if (e instanceof LockNotAcquiredError && opts.onContention === 'skip') {
        this.metrics.acquisitions.inc({ result: 'skipped' });
        return undefined;
      }
      throw e;
    }
    try {
      return await lockContext.run(handle, () => fn(handle));
    } finally {
      await handle.release().catch((e: unknown) => {
        this.logger.warn(
          `release of ${handle.keys.join(', ')} failed (it will expire by itself): ${String(e)}`,
        );
      });
    }
  }

  /** Owner-checked delete in one round trip; never retried, so an expired lock costs one call, not a storm. */
  async release(lock: HeldLock): Promise<'RELEASED' | 'NOT_HELD'> {
    if (lock.released) {
      return 'NOT_HELD';
    }
    this.untrack(lock); // synchronously: no renewal can start for it from here on
    let n: number;
    try {
      n = await this.releaseKeys(lock.redisKeys, lock.owner);
    } catch (e) {
      throw new LockBackendError(
        `could not reach Redis to release ${lock.keys.join(', ')}: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    if (n === lock.redisKeys.length) {
      return 'RELEASED';
    }
    this.lost(lock, 'the lease had run out before release', true);
    return 'NOT_HELD';
  }

  async extend(lock: HeldLock, leaseMs: number): Promise<boolean> {
    if (lock.released || lock.controller.signal.aborted) {
      return false;
    }
    const sentAt = performance.now();
    let ok: number;
    try {
      ok = Number(
        await this.scripts.dlockExtend(
          lock.redisKeys.length,
          ...lock.redisKeys,
          lock.owner,
          Math.round(leaseMs),
        ),
      );
    } catch (e) {
      throw new LockBackendError(
        `could not reach Redis to extend ${lock.keys.join(', ')}: ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    if (ok !== 1) {
      this.lost(lock, 'extend refused: the lock is no longer ours');
      return false;
    }
    lock.validUntil = sentAt + leaseMs;
    this.scheduleExpiry(lock);
    return true;
  }

  async onApplicationShutdown(): Promise<void> {
    this.watchdog.stop();
    await Promise.allSettled([...this.held].map((l) => this.release(l)));
  }

  /** How many locks this process holds now (for tests and diagnostics). */
  get heldCount(): number {
    return this.held.size;
  }

  private track(lock: HeldLock): HeldLock {
    this.held.add(lock);
    if (lock.watchdog) {
      this.watchdog.add(lock);
    }
    return lock;
  }

  private untrack(lock: HeldLock): void {
    lock.released = true;
    clearTimeout(lock.expiryTimer);
    this.watchdog.remove(lock);
    this.held.delete(lock);
  }

  /** Called when the holder first reads its signal: from then on, a lease running out aborts it. */
  armExpiry(lock: HeldLock): void {
    if (!lock.released && performance.now() >= lock.validUntil) {
      this.lost(lock, `lease of ${lock.leaseMs} ms ran out while held`);
      return;
    }
    this.scheduleExpiry(lock);
  }

  /** Aborts the holder's signal when its lease runs out while it still holds the lock. */
  private scheduleExpiry(lock: HeldLock): void {
    if (!lock.armed || lock.released) {
      return;
    }
    clearTimeout(lock.expiryTimer);
    const ms = Math.max(0, lock.validUntil - performance.now());
    lock.expiryTimer = setTimeout(
      () => this.lost(lock, `lease of ${lock.leaseMs} ms ran out while held`),
      ms,
    );
    lock.expiryTimer.unref();
  }

  private lost(lock: HeldLock, reason: string, evenIfReleased = false): void {
    if ((lock.released && !evenIfReleased) || lock.controller.signal.aborted) {
      return;
    }
    this.watchdog.remove(lock);
    clearTimeout(lock.expiryTimer);
    this.held.delete(lock); // no longer ours; release() still answers NOT_HELD with its one owner-checked call
    this.metrics.lost.inc({ reason: reason.split(':')[0].split(' ').slice(0, 2).join('_') });
    this.logger.warn(`lock lost on ${lock.keys.join(', ')}: ${reason}`);
    lock.controller.abort(new LockLostError(lock.keys, reason));
    try {
      this.options.onLockLost?.({ keys: lock.keys, reason });
    } catch (e) {
      this.logger.error(`onLockLost hook threw: ${String(e)}`);
    }
  }

  /** The watchdog's tick: one script per hash tag renews every watched lock of that tag. */
  private async renew(locks: HeldLock[]): Promise<void> {
    const byTag = new Map<string, HeldLock[]>();
    for (const l of locks) {
      const tag = hashTag(l.keys[0]);
      byTag.set(tag, [...(byTag.get(tag) ?? []), l]);
    }
    await Promise.all(
      [...byTag.values()].map(async (group) => {
        const keys = group.flatMap((l) => l.redisKeys);
        const owners = group.flatMap((l) => l.redisKeys.map(() => l.owner));
        const sentAt = performance.now();
        let results: number[];
        try {
          results = (await this.scripts.dlockRenew(
            keys.length,
            ...keys,
            this.watchdogLeaseMs,
            ...owners,
          )) as number[];
        } catch (e) {
          this.metrics.renewals.inc({ result: 'error' }, group.length);
          for (const l of group) {
            if (performance.now() >= l.validUntil) {
              this.lost(l, `renewal failed past the lease: ${(e as Error).message}`);
            }
          }
          return;
        }
        let i = 0;
        for (const l of group) {
          const mine = l.redisKeys.every(() => results[i++] === 1);
          if (l.released) {
            continue;
          }
          if (mine) {
            this.metrics.renewals.inc({ result: 'renewed' });
            l.validUntil = sentAt + this.watchdogLeaseMs;
            this.scheduleExpiry(l);
          } else {
            this.metrics.renewals.inc({ result: 'refused' });
            this.lost(l, 'renewal refused: the lock is no longer ours');
          }
        }
      }),
    );
  }

  private async releaseKeys(redisKeys: readonly string[], owner: string): Promise<number> {
    return Number(await this.scripts.dlockRelease(redisKeys.length, ...redisKeys, owner));
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}
