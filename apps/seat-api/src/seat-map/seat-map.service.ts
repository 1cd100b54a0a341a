import { Injectable } from '@nestjs/common';
import { sectionNotFound } from './seat-map-errors';
import { SeatMapSnapshots } from './seat-map.snapshots';
import { renderSeatMap } from './snapshot/seat-map-render';

/** True when an If-None-Match header names this entity tag (weak comparison, as for GET; or `*`). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) {
    return false;
  }
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => bare(tag) === bare(etag));
}

/**
 * The seat map as GET answers it, from this instance's snapshot of the event: one small change-log read
 * per request (shared by concurrent ones), counts kept rather than counted, the body rendered once per
 * version, and nothing at all to send when the client's copy is current.
 */
@Injectable()
export class SeatMapService {
  constructor(private readonly snapshots: SeatMapSnapshots) {}

  /** The current ETag and, unless `ifNoneMatch` names it, the SeatMapView JSON (encoded). */
  async seatMap(
    eventId: string,
    section?: string,
    ifNoneMatch?: string,
  ): Promise<{ etag: string; body?: Buffer }> {
    const sync = await this.snapshots.syncOf(eventId);
    await sync.refresh();
    const snap = sync.snapshot;
    const sectionNo = section === undefined ? undefined : snap.layout.section(section);
    if (section !== undefined && sectionNo === undefined) {
      throw sectionNotFound(section);
    }
    const etag = snap.etag();
    if (etagMatches(ifNoneMatch, etag)) {
      return { etag };
    }
    const body = renderSeatMap(snap, sectionNo);
    this.snapshots.account(sync);
    return { etag, body };
  }
}
