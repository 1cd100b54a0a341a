import { Logger } from '@nestjs/common';
import { eventPollers } from '../seat-map.metrics';
import { areasEvent, changesEvent, snapshotFrame } from '../snapshot/seat-map-render';
import type { SeatListTemplate } from '../snapshot/seat-list-template';
import { SnapshotSync } from '../snapshot/snapshot-sync';
import { SSE_PING, SseClient } from './sse-client';

/** At most one `changes` event per this many ms per event: the batching the stream promises. */
export const BATCH_MS = 250;

const logger = new Logger('SeatMapStream');

/**
 * The streams of one event on this instance. One reader of the change log however many clients listen:
 * every BATCH_MS it refreshes the event's snapshot (one small Redis call, shared with GET readers), and
 * the seats that changed since the last batch (from this refresh or any other) go out as one `changes`
 * event, rendered once and written to every client that has taken what it was sent. A client that has
 * not is owed those seats instead (sse-client.ts): once it has, it gets one event of everything it is
 * owed, with the statuses of that batch, or a new snapshot when it was owed too many. Started with the
 * first client, stopped with the last.
 */
export class EventFeed {
  private readonly clients = new Set<SseClient>();
  private readonly pending = new Set<number>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeReset: () => void;
  private readonly poller: NodeJS.Timeout;
  private readonly heartbeat: NodeJS.Timeout;
  private polling = false;
  private failing = false;
  private stopped = false;

  constructor(
    readonly sync: SnapshotSync,
    /** The layout's 'stream' seat-list template: what snapshots owed to clients are made from. */
    private readonly template: SeatListTemplate,
    heartbeatMs: number,
    private readonly onIdle: () => void,
  ) {
    this.unsubscribe = sync.onChange((positions) => positions.forEach((p) => this.pending.add(p)));
    // Redis lost the log: every client's view is of the lost data, and its ids of the lost versions
    this.unsubscribeReset = sync.onReset(() => this.clients.forEach((client) => client.oweSnapshot()));
    this.poller = setInterval(() => void this.tick(), BATCH_MS);
    this.heartbeat = setInterval(() => this.ping(), heartbeatMs);
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
    if (this.stopped) {
      return;
    }
    const snap = this.sync.snapshot;
    let shared: string | undefined;
    // the general-admission areas that changed since the last batch: one small frame for every client
    // (a client behind gets the areas as they are now, with what it is owed, once it has caught up)
    const changedAreas = snap.takeChangedAreas();
    const areas = changedAreas.length > 0 ? areasEvent(snap, changedAreas) : undefined;
    for (const client of this.clients) {
      if (!client.ready) {
        client.owe(this.pending);
        if (areas) {
          client.oweAreas();
        }
        continue;
      }
      const owesAreas = client.takeOwedAreas();
      const owes = client.owes;
      if (owes === 'snapshot') {
        client.sendSnapshot(snapshotFrame(snap, this.template));
      } else if (owes === 'seats') {
        const seats = client.takeOwed();
        this.pending.forEach((p) => seats.add(p));
        client.send(changesEvent(snap, seats));
      } else if (this.pending.size > 0) {
        shared ??= changesEvent(snap, this.pending);
        client.send(shared);
      }
      if (owes !== 'snapshot') {
        if (owesAreas && snap.areas().length > 0) {
          client.send(areasEvent(snap, snap.areas()));
        } else if (areas) {
          client.send(areas);
        }
      }
    }
    this.pending.clear();
  }

  /** A heartbeat for the clients that have taken everything (the others have bytes on the way). */
  private ping(): void {
    for (const client of this.clients) {
      if (client.ready) {
        client.send(SSE_PING);
      }
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
    this.unsubscribeReset();
    eventPollers.dec();
    this.onIdle();
  }
}
