/**
 * How a busy acquire waits: woken the moment this process releases a lock on one of its keys, else after
 * a timer. No Redis here: the wake is in-process (a holder in another process is found by the timer).
 *
 * Why a wake and not only a timer: a seat lock's critical section is a couple of round trips, but a
 * waiter that sleeps on a growing backoff (5, 10, 20 ... 200 ms) retries long after the lock was freed,
 * so under a flash sale the wait budget runs out behind locks that were free most of the time (503s
 * BUSY). Woken on release, a waiter retries at once.
 *
 * Every waiter of a released key is woken, not just one: a waiter that then finds the lock taken again
 * (one of them wins) asks its contention handler, which typically answers at once (the seat is now held:
 * 409), so the "storm" is one cheap acquire per waiter, pipelined by the client into one batch, and it
 * ends. Waking one waiter per release instead would chain the waiters one critical section after another.
 *
 * Which keys this process holds is counted too, so a waiter knows whether a wake will come (a local
 * holder: wait for it, bounded by the holder's lease) or it must poll (a holder elsewhere: jittered backoff).
 */
export type WaitEnd = 'woken' | 'timer';

/**
 * A busy acquire's claim on a wake, registered the moment Redis answered "busy": a release that lands
 * while the caller still runs its contention handler (a read: a round trip) is not missed, `wait` then
 * returns at once.
 */
export interface Watch {
  /** A release of one of the keys happened since the watch began. */
  readonly woken: boolean;
  wait(ms: number, signal?: AbortSignal): Promise<WaitEnd>;
  cancel(): void;
}

class Waiter implements Watch {
  woken = false;
  private onWake?: () => void;

  constructor(
    readonly keys: readonly string[],
    private readonly registry: LockWaiters,
  ) {}

  wake(): void {
    this.woken = true;
    this.registry.remove(this);
    this.onWake?.();
  }

  cancel(): void {
    this.registry.remove(this);
  }

  wait(ms: number, signal?: AbortSignal): Promise<WaitEnd> {
    if (this.woken) {
      return Promise.resolve('woken');
    }
    return new Promise<WaitEnd>((resolve, reject) => {
      if (signal?.aborted) {
        this.cancel();
        reject(signal.reason as Error);
        return;
      }
      const end = (how: WaitEnd) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.onWake = undefined;
        resolve(how);
      };
      const abort = () => {
        clearTimeout(timer);
        this.cancel();
        reject(signal!.reason as Error);
      };
      const timer = setTimeout(() => {
        this.cancel();
        end('timer');
      }, ms);
      this.onWake = () => end('woken');
      signal?.addEventListener('abort', abort, { once: true });
    });
  }
}

export class LockWaiters {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private readonly heldHere = new Map<string, number>();

  /** A lock of this process took these keys. */
  held(redisKeys: readonly string[]): void {
    for (const k of redisKeys) {
      this.heldHere.set(k, (this.heldHere.get(k) ?? 0) + 1);
    }
  }

  /** A lock of this process let go of these keys (released, or given up as lost). */
  unheld(redisKeys: readonly string[]): void {
    for (const k of redisKeys) {
      const n = (this.heldHere.get(k) ?? 0) - 1;
      if (n > 0) {
        this.heldHere.set(k, n);
      } else {
        this.heldHere.delete(k);
      }
    }
  }

  /** True when a lock of this process holds one of these keys: its release will wake the waiter. */
  anyHeldHere(redisKeys: readonly string[]): boolean {
    return redisKeys.some((k) => this.heldHere.has(k));
  }

  /** Registers a wake for these keys now; wait on it (or cancel it) later. */
  watch(redisKeys: readonly string[]): Watch {
    const waiter = new Waiter(redisKeys, this);
    for (const k of redisKeys) {
      let set = this.waiting.get(k);
      if (!set) {
        set = new Set();
        this.waiting.set(k, set);
      }
      set.add(waiter);
    }
    return waiter;
  }

  /** Wakes every waiter of these keys (call once Redis has the keys deleted, so their retry can win). */
  wake(redisKeys: readonly string[]): void {
    for (const k of redisKeys) {
      const set = this.waiting.get(k);
      if (set) {
        for (const w of [...set]) {
          w.wake();
        }
      }
    }
  }

  /** How many acquisitions wait now (diagnostics, tests). */
  get size(): number {
    const all = new Set<Waiter>();
    for (const set of this.waiting.values()) {
      set.forEach((w) => all.add(w));
    }
    return all.size;
  }

  remove(waiter: Waiter): void {
    for (const k of waiter.keys) {
      const set = this.waiting.get(k);
      if (set) {
        set.delete(waiter);
        if (set.size === 0) {
          this.waiting.delete(k);
        }
      }
    }
  }
}
