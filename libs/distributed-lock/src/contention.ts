import type { AcquireOptions, ContentionHandler } from './distributed-lock.options';
import { LockNotAcquiredError } from './errors';
import type { LockMetrics } from './lock-metrics';
import type { LockWaiters } from './lock-waiters';

/**
 * What a busy acquire does between attempts: ask the caller's contention handler (it may know the answer
 * without the lock), then wait for a release or a timer (lock-waiters.ts), then try again, until the wait
 * budget is spent.
 */

/** Polling a holder in another process: first retry after 2-4 ms, doubling up to 32-64 ms. */
const POLL_FIRST_MS = 4;
const POLL_CAP_MS = 64;

/**
 * How long to wait before the next attempt (a release in this process ends the wait earlier).
 * - The holder is in this process: its release wakes us, so the timer is only a backstop, sized from the
 *   holder's remaining lease (after which the key is gone whatever the holder does).
 * - The holder is elsewhere: no wake comes (there is no cross-process signal), so poll, with full
 *   jitter on a doubling interval so waiters that met the same holder do not retry in step.
 * Never past the holder's lease nor the wait budget: the attempt at the budget's end is always made.
 */
export function nextWaitMs(p: {
  attempt: number;
  remainingMs: number;
  holderTtlMs: number;
  holderHere: boolean;
}): number {
  const untilFree = Math.max(1, p.holderTtlMs);
  if (p.holderHere) {
    return Math.min(p.remainingMs, untilFree);
  }
  const cap = Math.min(POLL_CAP_MS, POLL_FIRST_MS * 2 ** p.attempt);
  return Math.min(p.remainingMs, untilFree, cap / 2 + (Math.random() * cap) / 2);
}

/**
 * One acquire's waiting between busy attempts: ask the contention handler, then wait for a release here
 * or a timer. The budget is waitMs, or localWaitMs while the holder is a lock of this process.
 */
export class BusyWait {
  private overtime = false;
  private readonly localWaitMs: number;

  constructor(
    private readonly keys: string[],
    private readonly redisKeys: string[],
    private readonly started: number,
    private readonly waitMs: number,
    private readonly opts: AcquireOptions,
    private readonly waiters: LockWaiters,
    private readonly metrics: LockMetrics,
  ) {
    this.localWaitMs = Math.max(waitMs, opts.localWaitMs ?? 0);
  }

  /**
   * Call right after Redis answered "busy" (holderTtl > 0) or refused a late grant (0), before anything
   * else is awaited. Resolves when it is time for the next attempt; resolves to LockNotAcquiredError once
   * the budget is spent; rejects with what the contention handler throws.
   */
  async afterBusy(attempt: number, holderTtl: number): Promise<LockNotAcquiredError | undefined> {
    // synchronously after Redis answered: a release here from now on ends the wait below
    const watch = this.waiters.watch(this.redisKeys);
    const holderHere = this.waiters.anyHeldHere(this.redisKeys);
    const deadline = this.started + (holderHere ? this.localWaitMs : this.waitMs);
    if (this.opts.onBusy && holderTtl > 0) {
      try {
        await this.ask(this.opts.onBusy, attempt, deadline, holderTtl);
      } catch (e) {
        watch.cancel();
        throw e;
      }
    }
    const remaining = deadline - performance.now();
    if (remaining <= 0 && watch.woken && !this.overtime) {
      this.overtime = true; // the holder let go while the handler ran: one last attempt, past the budget
      return undefined;
    }
    if (remaining <= 0) {
      watch.cancel();
      const waited = performance.now() - this.started;
      this.metrics.acquisitions.inc({ result: 'busy' });
      this.metrics.waitSeconds.observe(waited / 1000);
      return new LockNotAcquiredError(this.keys, waited, Math.max(holderTtl, 1));
    }
    const delay = nextWaitMs({ attempt, remainingMs: remaining, holderTtlMs: holderTtl, holderHere });
    this.metrics.waits.inc({ ended: await watch.wait(delay, this.opts.signal) });
    return undefined;
  }

  /** Runs the contention handler; what it throws ends the acquire (counted as answered by it). */
  private async ask(
    onBusy: ContentionHandler,
    attempt: number,
    deadline: number,
    holderTtlMs: number,
  ): Promise<void> {
    const now = performance.now();
    try {
      await onBusy({
        keys: this.keys,
        attempt: attempt + 1,
        waitedMs: now - this.started,
        remainingMs: Math.max(0, deadline - now),
        holderTtlMs,
      });
    } catch (e) {
      this.metrics.acquisitions.inc({ result: 'answered_by_handler' });
      this.metrics.waitSeconds.observe((performance.now() - this.started) / 1000);
      throw e;
    }
  }
}
