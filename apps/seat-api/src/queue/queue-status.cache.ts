import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { QueueFigures } from '../hold-store';
import { QueueStatusView } from './dto/queue-status.view';
import { queueActiveShoppers, queueWaiting } from './queue.metrics';

/** A queue's public status as sent: the view, its JSON and its ETag (of the JSON: the same on every instance). */
export interface QueueStatus {
  view: QueueStatusView;
  json: string;
  etag: string;
  /** Whether a hold needs a pass now (the queue is open by this instance's clock). */
  gates: boolean;
}

/** How long this instance takes an event for one without a queue, once Redis said so. */
const NO_QUEUE_MS = 1000;

/**
 * Each event's queue status on this instance, as its last step left it (QueueAdmission steps every queue a
 * few times a second): GET /v1/events/{id}/queue and its stream answer from here, so a million clients
 * polling cost this process what seat-map 304s do, and Redis nothing per request. Listeners (the streams)
 * hear of each change.
 */
@Injectable()
export class QueueStatusCache {
  private readonly statuses = new Map<string, QueueStatus>();
  /** Events Redis said have no queue, for a moment (bounded: anyone may ask for any event id). */
  private readonly none = new LRUCache<string, true>({ max: 10_000, ttl: NO_QUEUE_MS });
  private readonly listeners = new Map<string, Set<(s: QueueStatus) => void>>();

  get(eventId: string): QueueStatus | null | undefined {
    return this.statuses.get(eventId) ?? (this.none.has(eventId) ? null : undefined);
  }

  events(): string[] {
    return [...this.statuses.keys()];
  }

  /** What a step found: the figures (null: no queue). Listeners hear of a change. */
  update(eventId: string, figures: QueueFigures | null): QueueStatus | null {
    if (!figures) {
      this.drop(eventId);
      return null;
    }
    const view = viewOf(eventId, figures, Date.now());
    const json = JSON.stringify(view);
    const before = this.statuses.get(eventId);
    if (before?.json === json) {
      return before;
    }
    const status: QueueStatus = {
      view,
      json,
      etag: `W/"${createHash('sha1').update(json).digest('base64url').slice(0, 20)}"`,
      gates: view.phase !== 'SCHEDULED',
    };
    this.statuses.set(eventId, status);
    queueWaiting.set({ event: eventId }, figures.waiting);
    queueActiveShoppers.set({ event: eventId }, figures.activeShoppers);
    this.listeners.get(eventId)?.forEach((l) => l(status));
    return status;
  }

  /** The event has no queue (any more): forgotten, and taken for one without a queue for a moment. */
  drop(eventId: string): void {
    if (this.statuses.delete(eventId)) {
      queueWaiting.remove({ event: eventId });
      queueActiveShoppers.remove({ event: eventId });
    }
    this.none.set(eventId, true);
  }

  listen(eventId: string, listener: (s: QueueStatus) => void): () => void {
    let set = this.listeners.get(eventId);
    if (!set) {
      set = new Set();
      this.listeners.set(eventId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) {
        this.listeners.delete(eventId);
      }
    };
  }
}

function viewOf(eventId: string, f: QueueFigures, nowMs: number): QueueStatusView {
  return {
    eventId,
    phase: nowMs < f.opensAtMs ? 'SCHEDULED' : nowMs < f.salesStartAtMs ? 'PREQUEUE' : 'ON_SALE',
    opensAt: new Date(f.opensAtMs).toISOString(),
    salesStartAt: new Date(f.salesStartAtMs).toISOString(),
    order: f.order,
    admitPerMinute: f.admitPerMinute,
    maxActiveShoppers: f.maxActiveShoppers,
    passTtlSeconds: Math.round(f.passTtlMs / 1000),
    idleEntryTtlSeconds: Math.round(f.idleEntryTtlMs / 1000),
    paused: f.paused,
    servingNumber: f.servingNumber,
    lastNumber: f.lastNumber,
    etaSecondsPerPlace: Math.round((60 / f.admitPerMinute) * 1000) / 1000,
    activeShoppers: f.activeShoppers,
    waiting: f.waiting,
  };
}
