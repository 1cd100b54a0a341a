import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { LRUCache } from 'lru-cache';
import { AppConfig } from '@app/config';
import { CatalogueService } from '../catalogue/catalogue.service';
import { meteredLru } from '../common/cache/metered-lru';
import { SeatChangeLog } from '../hold-store';
import { SeatLayout } from './snapshot/seat-layout';
import { SnapshotSync, SyncSource } from './snapshot/snapshot-sync';

/**
 * This instance's seat-map snapshots, one per event, in a least-recently-used map bounded by an estimated
 * byte budget (SEAT_MAP_CACHE_MAX_BYTES; memory_cache_*{cache="seat_map"} on /metrics). The seat list
 * comes from the catalogue (cached), the states from Redis: a cold event is built once by a chunked scan
 * (concurrent first readers share the build), then every read only follows the change log.
 *
 * An event with open streams is pinned: its feed keeps reading it, so it stays in use (and reachable
 * here, one snapshot per event) even if the budget pushes it out of the map; its memory is bounded by
 * SEAT_MAP_MAX_STREAMS instead.
 */
@Injectable()
export class SeatMapSnapshots implements OnModuleDestroy {
  private readonly lru: LRUCache<string, SnapshotSync>;
  private readonly building = new Map<string, Promise<SnapshotSync>>();
  private readonly pinned = new Map<string, SnapshotSync>();
  private readonly source: SyncSource;

  constructor(
    private readonly catalogue: CatalogueService,
    log: SeatChangeLog,
    config: AppConfig,
  ) {
    this.lru = meteredLru({ name: 'seat_map', maxBytes: config.seatMap.cacheMaxBytes });
    this.source = { log, confirmTimeoutMs: config.holds.confirmTimeoutMs };
  }

  /** The event's snapshot keeper, built if this instance has none (404 EVENT_NOT_FOUND for no event). */
  syncOf(eventId: string): Promise<SnapshotSync> {
    const hit = this.lru.get(eventId) ?? this.pinned.get(eventId);
    if (hit) {
      return Promise.resolve(hit);
    }
    let pending = this.building.get(eventId);
    if (!pending) {
      pending = this.build(eventId).finally(() => this.building.delete(eventId));
      this.building.set(eventId, pending);
    }
    return pending;
  }

  /** Records the snapshot's current size (it grows with rendered bodies, changes with rebuilds). */
  account(sync: SnapshotSync): void {
    this.lru.set(sync.eventId, sync, { size: sync.snapshot.bytes });
  }

  /**
   * `account`, unless the event's keeper was replaced meanwhile (evicted and built again while a body
   * was being compressed): putting the old one back would keep two snapshots of one event.
   */
  accountIfCurrent(sync: SnapshotSync): void {
    const current = this.lru.get(sync.eventId) ?? this.pinned.get(sync.eventId);
    if (current === sync) {
      this.account(sync);
    }
  }

  pin(sync: SnapshotSync): void {
    this.pinned.set(sync.eventId, sync);
  }

  unpin(eventId: string): void {
    this.pinned.delete(eventId);
  }

  onModuleDestroy(): void {
    this.lru.clear();
    this.pinned.clear();
  }

  private async build(eventId: string): Promise<SnapshotSync> {
    const seats = await this.catalogue.requireSeats(eventId);
    const sync = await SnapshotSync.build(
      eventId,
      new SeatLayout(seats, [...seats.areas.values()]),
      this.source,
    );
    this.account(sync);
    return sync;
  }
}
