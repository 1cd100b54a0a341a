import type { TrackedLock } from './tracked-lock';

/**
 * One timer for the whole process (not one per lock): every third of the lease it hands all watched
 * locks to `renew`, which batches them per hash tag. Stops itself when nothing is watched, so an idle
 * process keeps no timer and a released lock is never renewed again (it is removed synchronously).
 */
export class Watchdog {
  private readonly locks = new Set<TrackedLock>();
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly leaseMs: number,
    private readonly renew: (locks: TrackedLock[]) => Promise<void>,
  ) {}

  add(lock: TrackedLock): void {
    this.locks.add(lock);
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), Math.max(10, Math.floor(this.leaseMs / 3)));
      this.timer.unref();
    }
  }

  remove(lock: TrackedLock): void {
    this.locks.delete(lock);
    if (this.locks.size === 0) {
      this.stop();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.running || this.locks.size === 0) {
      return; // a slow Redis must not stack renewals
    }
    this.running = true;
    try {
      await this.renew([...this.locks].filter((l) => !l.released));
    } finally {
      this.running = false;
    }
  }
}
