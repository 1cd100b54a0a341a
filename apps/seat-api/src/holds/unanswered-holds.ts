import { Logger } from '@nestjs/common';
import { LockOutcomeUnknownError } from '@app/distributed-lock';
import { StoreResult } from '../hold-store';

/** A hold Redis may have made for a request that got no answer from it. */
export interface UnansweredHold {
  holdId: string;
  eventId: string;
  userId: string;
  /** Past this (the hold's ttl from when it was sent) the hold has run out by itself: nothing to undo. */
  untilMs: number;
}

/** Undos waiting at most; past it a hold is left to its ttl (a Redis that stays away for long). */
const MAX_PENDING = 10_000;
/** Between attempts while Redis does not answer: soon at first, then no more than once a second. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1000;
/** How long a new hold of the same user on the same event waits for such an undo before it goes ahead. */
const RETRY_WAITS_MS = 1000;

/**
 * Whether a failed hold may still have been made: the script left the client, but its reply did not come
 * back (REDIS_COMMAND_TIMEOUT_MS ran out, or the connection closed with it in flight). ioredis gives up on
 * the reply, yet Redis runs the command when it gets to it: a stalled Redis makes the hold once it resumes.
 * A refusal, or a command that never left (Redis down, no offline queue), made nothing.
 */
export function replyLost(e: unknown): boolean {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 5; c = c.cause, depth++) {
    if (c instanceof LockOutcomeUnknownError || /Command timed out|Connection is closed/.test(c.message)) {
      return true;
    }
  }
  return false;
}

/**
 * Holds made for requests that were answered 503 without their id (replyLost), undone by that id. The id
 * is drawn by the service before the script is sent (HoldIds.generate), so the service knows what to undo
 * without the lost reply; the undo is the owner-checked release of that id under the seat lock.
 *
 * Why undo rather than hand the hold to a retry: a client that got a 503 may never retry, and then a hold
 * it does not know of would keep the seats from everyone for its whole ttl. The first undo is sent at once:
 * on the same connection as the lost script (the seat locks share its slot), so Redis runs it after the
 * script, and it frees the seats the moment Redis resumes. While Redis does not answer it is tried again
 * until the hold's ttl would have ended it anyway.
 *
 * A retry of the same user on the same event that reaches this instance waits (briefly) for the undo, so
 * it finds its seats free rather than held by its own lost hold (409). On another instance it may get that
 * 409 until the undo has run, which is as soon as Redis answers this instance again.
 *
 * If the process dies between sending the script and the undo, the hold it may have made lives out its
 * ttl (HOLD_DEFAULT_TTL_SECONDS, at most HOLD_MAX_TTL_SECONDS), like any hold whose user went away.
 */
export class UnansweredHolds {
  private readonly logger = new Logger('Holds');
  /** holdId -> the undo under way (settles when it is done or given up) */
  private readonly pending = new Map<string, { hold: UnansweredHold; done: Promise<void> }>();
  /** Waits under way: shutdown ends them all at once. */
  private readonly sleeps = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  private closed = false;

  /** `release`: the owner-checked release of a hold by its id (LockedHoldChanges.release, under the seat lock). */
  constructor(private readonly release: (hold: UnansweredHold) => Promise<StoreResult<string>>) {}

  /**
   * Sends a new hold (`create`, which makes `hold.holdId`) once the undos of this user's earlier
   * unanswered holds on the event are through (a retry then finds its seats free rather than held by its
   * own lost hold, 409); if its reply is lost, undoes it.
   */
  async run<T>(hold: UnansweredHold, create: () => Promise<T>): Promise<T> {
    await this.settled(hold.userId, hold.eventId);
    try {
      return await create();
    } catch (e) {
      if (replyLost(e)) {
        this.undo(hold);
      }
      throw e;
    }
  }

  private undo(hold: UnansweredHold): void {
    if (this.closed || this.pending.has(hold.holdId)) {
      return;
    }
    if (this.pending.size >= MAX_PENDING) {
      this.logger.warn({ msg: 'unanswered hold left to its ttl (too many undos pending)', ...hold });
      return;
    }
    const done = this.attempt(hold).finally(() => this.pending.delete(hold.holdId));
    this.pending.set(hold.holdId, { hold, done });
  }

  /** Waits (at most RETRY_WAITS_MS) for the undos of this user's unanswered holds on this event. */
  private async settled(userId: string, eventId: string): Promise<void> {
    if (this.pending.size === 0) {
      return;
    }
    const mine = [...this.pending.values()]
      .filter(({ hold }) => hold.userId === userId && hold.eventId === eventId)
      .map(({ done }) => done);
    if (mine.length > 0) {
      await this.sleep(RETRY_WAITS_MS, Promise.all(mine));
    }
  }

  /** Stops retrying (shutdown); a hold not undone yet lives out its ttl. */
  close(): void {
    this.closed = true;
    this.sleeps.forEach((s) => s.wake());
  }

  private async attempt(hold: UnansweredHold): Promise<void> {
    for (let delay = FIRST_RETRY_MS; !this.closed; delay = Math.min(2 * delay, MAX_RETRY_MS)) {
      try {
        const r = await this.release(hold);
        // HOLD_NOT_FOUND: Redis never made it. Nobody was told its id, so nothing else can have changed it
        if (r.ok || r.error === 'HOLD_NOT_FOUND') {
          return;
        }
        throw new Error(r.error);
      } catch (e) {
        if (Date.now() + delay >= hold.untilMs) {
          this.logger.warn({ msg: 'unanswered hold not undone: left to its ttl', ...hold, error: String(e) });
          return;
        }
      }
      await this.sleep(delay);
    }
  }

  /** Resolves after `ms`, or sooner when `until` settles or the instance closes. */
  private sleep(ms: number, until?: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      const s = {
        timer: setTimeout(() => s.wake(), ms),
        wake: () => {
          clearTimeout(s.timer);
          this.sleeps.delete(s);
          resolve();
        },
      };
      this.sleeps.add(s);
      void until?.then(s.wake, s.wake);
    });
  }
}
