import { Logger } from '@nestjs/common';
import { eventPollers } from '../seat-map.metrics';
import { changesEvent } from '../snapshot/seat-map-render';
import { SnapshotSync } from '../snapshot/snapshot-sync';
import { SSE_PING, SseClient } from './sse-client';

/** At most one `changes` event per this many ms per event: the batching the stream promises. */
export const BATCH_MS = 250;

const logger = new Logger('SeatMapStream');

/**
 * The streams of one event on this instance. One reader of the change log however many clients listen:
 * every BATCH_MS it refreshes the event's snapshot (one small Redis call, shared with GET readers), and
 * the seats that changed since the last batch (from this refresh or any other) go out as one `changes`
 * event, rendered once and written to every client. Started with the first client, stopped with the last.
 */
export class EventFeed {
  private readonly clients = new Set<SseClient>();
  private readonly pending = new Set<number>();
  private readonly unsubscribe: () => void;
  private readonly poller: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  private polling = false;
  private failing = false;
  private stopped = false;

  constructor(
    readonly sync: SnapshotSync,
    heartbeatMs: number,
    private readonly onIdle: () => void,
  ) {
    this.unsubscribe = sync.onChange((positions) => positions.forEach((p) => this.pending.add(p)));
    this.poller = setInterval(() => void this.tick(), BATCH_MS);
    this.heartbeat = setInterval(() => this.broadcast(SSE_PING), heartbeatMs);
    this.poller.unref();
    this.heartbeat.unref();
    eventPollers.inc();
  }

  get size(): number {
    return this.clients.size;
  }

  add(client: SseClient): void {
    this.clients.add(client);
  }

  remove(client: SseClient): void {
    this.clients.delete(client);
    if (this.clients.size === 0) {
      this.stop();
    }
  }

  /** Ends every stream (shutdown) and stops reading. */
  close(): void {
    for (const client of [...this.clients]) {
      client.end();
    }
    this.stop();
  }

  private async tick(): Promise<void> {
    if (!this.polling) {
      this.polling = true;
      try {
        await this.sync.refresh();
        if (this.failing) {
          logger.log({ msg: 'seat map stream reads the change log again', eventId: this.sync.eventId });
        }
        this.failing = false;
      } catch (e) {
        // streams stay open (heartbeats go on) and catch up when Redis answers again
        if (!this.failing) {
          logger.warn({
            msg: `seat map stream cannot read the change log: ${(e as Error).message}`,
            eventId: this.sync.eventId,
          });
        }
        this.failing = true;
      } finally {
        this.polling = false;
      }
    }
    this.flush();
  }

  private flush(): void {
    if (this.pending.size === 0 || this.stopped) {
      return;
    }
    const event = changesEvent(this.sync.snapshot, this.pending);
    this.pending.clear();
    this.broadcast(event);
  }

  private broadcast(chunk: string): void {
    for (const client of this.clients) {
      client.send(chunk);
    }
  }

  private stop(): void {
    if (this.stopped) {
      return;
    }
    this.stopped = true;
    clearInterval(this.poller);
    clearInterval(this.heartbeat);
    this.unsubscribe();
    eventPollers.dec();
    this.onIdle();
  }
}
