import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { tooManyStreams } from '../seat-map-errors';
import { openStreams, refusedStreams } from '../seat-map.metrics';
import { SeatMapSnapshots } from '../seat-map.snapshots';
import { changesEvent, snapshotEvent } from '../snapshot/seat-map-render';
import { SnapshotSync } from '../snapshot/snapshot-sync';
import { EventFeed } from './event-feed';
import { SseClient } from './sse-client';

/**
 * GET /v1/events/{eventId}/seats/stream. Everything that can fail (too many streams, no such event,
 * Redis down) fails before the reply is taken over, so it still answers in the error envelope. Then, in
 * one synchronous step, the first event is written and the client joins its event's feed: no change can
 * fall between the two (a change applied before is in the first event, one after goes out with the next
 * batch; a seat in both is simply sent twice, with the same status).
 */
@Injectable()
export class SeatMapStreams implements OnModuleDestroy {
  private readonly feeds = new Map<string, EventFeed>();
  private readonly maxStreams: number;
  private readonly heartbeatMs: number;
  private open = 0;

  constructor(
    private readonly snapshots: SeatMapSnapshots,
    config: AppConfig,
  ) {
    this.maxStreams = config.seatMap.maxStreams;
    this.heartbeatMs = config.seatMap.heartbeatMs;
  }

  /** Streams the event's map to this client: a snapshot, or (lastEventId) what changed since then. */
  async stream(eventId: string, lastEventId: number | undefined, req: FastifyRequest, reply: FastifyReply) {
    if (this.open >= this.maxStreams) {
      refusedStreams.inc();
      throw tooManyStreams();
    }
    this.track(+1); // counted from now: concurrent opens cannot all pass the check above
    let streaming = false;
    try {
      const sync = await this.snapshots.syncOf(eventId);
      await sync.refresh();
      const resume = lastEventId === undefined ? null : await sync.changedSince(lastEventId);
      const template = resume ? null : await sync.snapshot.layout.listTemplate('stream', eventId);
      // from here on synchronous
      const snap = sync.snapshot;
      const first = resume ? changesEvent(snap, resume) : snapshotEvent(snap, template!);
      reply.hijack();
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        // no proxy may cache, transform or buffer it (X-Accel-Buffering: nginx)
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
        connection: 'keep-alive',
        'x-request-id': String(req.id),
      });
      req.raw.socket.setNoDelay(true);
      const feed = this.feedOf(sync);
      const client = new SseClient(reply.raw, () => {
        feed.remove(client);
        this.track(-1);
      });
      client.first(first);
      feed.add(client);
      streaming = true;
      this.snapshots.account(sync);
    } finally {
      if (!streaming) {
        this.track(-1);
      }
    }
  }

  onModuleDestroy(): void {
    // open streams would keep the server from closing: end them (clients reconnect elsewhere)
    for (const feed of [...this.feeds.values()]) {
      feed.close();
    }
  }

  private feedOf(sync: SnapshotSync): EventFeed {
    let feed = this.feeds.get(sync.eventId);
    if (!feed) {
      const created = new EventFeed(sync, this.heartbeatMs, () => {
        this.feeds.delete(sync.eventId);
        this.snapshots.unpin(sync.eventId);
      });
      this.feeds.set(sync.eventId, created);
      this.snapshots.pin(sync);
      feed = created;
    }
    return feed;
  }

  private track(delta: number): void {
    this.open += delta;
    openStreams.inc(delta);
  }
}
