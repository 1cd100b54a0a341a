import type { Socket } from 'node:net';
import { unacknowledgedBytes } from './tcp-unacknowledged';

/** A stream whose socket is full: watched until it drains, or dropped. */
export interface Stalled {
  readonly socket: Socket | null;
  /** Ends the stream: its client took nothing for the drain timeout. */
  drop(): void;
}

/** Checks per drain timeout: a stream is dropped between 1 and 1.1 drain timeouts after its last progress. */
const CHECKS_PER_TIMEOUT = 10;

/**
 * The streams whose client has not taken what was written to it yet, checked for progress: a stream is
 * dropped once its client has taken nothing for the drain timeout, never while it keeps reading, however
 * slowly. Progress is the kernel taking more of what was written (the socket's bytes written minus those
 * still buffered) or, on Linux, the client acknowledging more of what the kernel holds
 * (tcp-unacknowledged.ts); the second is what shows a slow reader's progress, since the kernel takes more
 * only once a third of its send buffer is free. The timer runs only while some stream is stalled.
 */
export class StalledStreams {
  private readonly watched = new Map<Stalled, { mark?: string; since: number }>();
  private timer?: NodeJS.Timeout;
  private checking = false;

  constructor(private readonly drainTimeoutMs: number) {}

  /** Watches a stream whose socket did not take a write whole (already watched: nothing changes). */
  watch(stream: Stalled): void {
    if (!this.watched.has(stream)) {
      this.watched.set(stream, { since: Date.now() });
    }
    if (!this.timer) {
      this.timer = setInterval(() => void this.check(), this.drainTimeoutMs / CHECKS_PER_TIMEOUT);
      this.timer.unref();
    }
  }

  /** The stream's socket drained, or the stream ended. */
  unwatch(stream: Stalled): void {
    this.watched.delete(stream);
  }

  private async check(): Promise<void> {
    if (this.watched.size === 0) {
      // a socket stalls and drains many times a second while it is written fast: the timer stays
      // until a check finds nothing to watch
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    if (this.checking) {
      return;
    }
    this.checking = true;
    try {
      const streams = [...this.watched.keys()];
      const sockets = streams.flatMap((s) => (s.socket ? [s.socket] : []));
      const unacknowledged = await unacknowledgedBytes(sockets);
      const now = Date.now();
      for (const stream of streams) {
        const seen = this.watched.get(stream);
        if (!seen || !stream.socket) {
          continue;
        }
        const { socket } = stream;
        const mark = `${socket.bytesWritten - socket.writableLength} ${unacknowledged.get(socket) ?? ''}`;
        if (seen.mark === undefined) {
          seen.mark = mark; // the first look: progress is counted from the stall on
        } else if (mark !== seen.mark) {
          seen.mark = mark;
          seen.since = now;
        } else if (now - seen.since >= this.drainTimeoutMs) {
          this.unwatch(stream);
          stream.drop();
        }
      }
    } finally {
      this.checking = false;
    }
  }
}
