import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '@app/config';
import { openEventStream } from '../../common/event-stream';
import { trackerOf } from '../../rate-limit/rate-limit.guard';
import { streamLimitExceeded, tooManyStreams } from '../seat-map-errors';
import { openStreams, refusedStreams } from '../seat-map.metrics';
import { SeatMapSnapshots } from '../seat-map.snapshots';
import { areasEvent, changesEvent, snapshotFrame } from '../snapshot/seat-map-render';
import type { SeatListTemplate } from '../snapshot/seat-list-template';
import { SnapshotSync } from '../snapshot/snapshot-sync';
import { EventFeed } from './event-feed';
import { SseClient, STREAM_BASE_BYTES } from './sse-client';
import { StalledStreams } from './stalled-streams';

/**
 * GET /v1/events/{eventId}/seats/stream. Everything that can fail (too many streams, here or for this
 * caller, no memory budget left, no such event, Redis down) fails before the reply is taken over, so it
 * still answers in the error envelope. Then, in one synchronous step, the first event is written and the
 * client joins its event's feed: no change can fall between the two (a change applied before is in the
 * first event, one after goes out with the next batch; a seat in both is simply sent twice, with the
 * same status).
 *
 * Memory: each stream is charged STREAM_BASE_BYTES plus one byte per seat of its event (the statuses of
 * the snapshot frame it may be sending, sse-client.ts) against SEAT_MAP_STREAM_MEMORY_MAX_BYTES. What a
 * stream holds does not grow with what its client leaves unread: a client that reads nothing holds one
 * piece of its snapshot until the drain timeout drops it (stalled-streams.ts).
 */
@Injectable()
export class SeatMapStreams implements OnModuleDestroy {
  private readonly feeds = new Map<string, EventFeed>();
  private readonly maxStreams: number;
  private readonly heartbeatMs: number;
  private readonly maxPerCaller: number;
  private readonly stalls: StalledStreams;
  private readonly memoryBudget: number;
  private open = 0;
  /** Open streams per caller (counted from the checks on, like `open`). */
  private readonly perCaller = new Map<string, number>();
  /** Bytes charged to the open streams. */
  private charged = 0;

  constructor(
    private readonly snapshots: SeatMapSnapshots,
    config: AppConfig,
  ) {
    const c = config.seatMap;
    this.maxStreams = c.maxStreams;
    this.heartbeatMs = c.heartbeatMs;
    this.maxPerCaller = c.maxStreamsPerCaller;
    this.stalls = new StalledStreams(c.drainTimeoutMs);
    this.memoryBudget = c.streamMemoryMaxBytes;
  }

  /** Streams the event's map to this client: a snapshot, or (lastEventId) what changed since then. */
  async stream(
    eventId: string,
    lastEventId: { epoch: string; version: number } | undefined,
    req: FastifyRequest,
    reply: FastifyReply,
  ) {
    if (this.open >= this.maxStreams) {
      refusedStreams.inc({ reason: 'max_streams' });
      throw tooManyStreams();
    }
    const caller = trackerOf(req);
    if ((this.perCaller.get(caller) ?? 0) >= this.maxPerCaller) {
      refusedStreams.inc({ reason: 'caller' });
      throw streamLimitExceeded(this.maxPerCaller);
    }
    // counted from now: concurrent opens cannot all pass the checks above
    this.track(+1, caller, 0);
    let charge = 0;
    let streaming = false;
    try {
      const sync = await this.snapshots.syncOf(eventId);
      charge = STREAM_BASE_BYTES + sync.snapshot.layout.size;
      if (this.charged + charge > this.memoryBudget) {
        charge = 0;
        refusedStreams.inc({ reason: 'memory' });
        throw tooManyStreams();
      }
      this.track(0, caller, charge);
      await sync.refresh();
      const resume =
        lastEventId === undefined ? null : await sync.changedSince(lastEventId.version, lastEventId.epoch);
      // the feed needs the template for snapshots it owes later, a resume too
      const template = await sync.snapshot.layout.listTemplate('stream', eventId);
      // from here on synchronous
      const snap = sync.snapshot;
      const res = openEventStream(req, reply);
      const feed = this.feedOf(sync, template);
      const client = new SseClient(res, this.stalls, () => {
        feed.remove(client);
        this.track(-1, caller, -charge);
      });
      if (resume) {
        client.send(changesEvent(snap, resume));
        // and every area as it is now: they are few, and a resume reads only seat positions from the log
        if (snap.areas().length > 0) {
          client.send(areasEvent(snap, snap.areas()));
        }
      } else {
        client.sendSnapshot(snapshotFrame(snap, template));
      }
      feed.add(client);
      streaming = true;
      this.snapshots.account(sync);
    } finally {
      if (!streaming) {
        this.track(-1, caller, -charge);
      }
    }
  }

  onModuleDestroy(): void {
    // open streams would keep the server from closing: end them (clients reconnect elsewhere)
    for (const feed of [...this.feeds.values()]) {
      feed.close();
    }
  }

  private feedOf(sync: SnapshotSync, template: SeatListTemplate): EventFeed {
    let feed = this.feeds.get(sync.eventId);
    if (!feed) {
      const created = new EventFeed(sync, template, this.heartbeatMs, () => {
        this.feeds.delete(sync.eventId);
        this.snapshots.unpin(sync.eventId);
      });
      this.feeds.set(sync.eventId, created);
      this.snapshots.pin(sync);
      feed = created;
    }
    return feed;
  }

  private track(delta: number, caller: string, bytes: number): void {
    this.open += delta;
    this.charged += bytes;
    const mine = (this.perCaller.get(caller) ?? 0) + delta;
    if (mine > 0) {
      this.perCaller.set(caller, mine);
    } else {
      this.perCaller.delete(caller);
    }
    openStreams.inc(delta);
  }
}
