import { Injectable } from '@nestjs/common';
import { preferredEncoding, MapEncoding } from './encoding/accept-encoding';
import { SeatMapCompression } from './encoding/map-compression';
import { sectionNotFound } from './seat-map-errors';
import { mapBodies } from './seat-map.metrics';
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

/** What GET sends: the ETag, and unless the client's copy is current, the body in `encoding` (none: identity). */
export interface SeatMapAnswer {
  etag: string;
  body?: Buffer;
  encoding?: MapEncoding;
}

/**
 * The seat map as GET answers it, from this instance's snapshot of the event: one small change-log read
 * per request (shared by concurrent ones), counts kept rather than counted, the body rendered once per
 * version (and compressed at most once per version and coding: encoding/map-compression.ts), and
 * nothing at all to send when the client's copy is current.
 */
@Injectable()
export class SeatMapService {
  constructor(
    private readonly snapshots: SeatMapSnapshots,
    private readonly compression: SeatMapCompression,
  ) {}

  /**
   * The current ETag and, unless `ifNoneMatch` names it, the SeatMapView JSON (encoded), compressed when
   * `acceptEncoding` allows and a compressed body of this version is kept or being made. A ?section=
   * body is rendered per request and sent as it is: compressing it per request would cost more than it
   * saves (a section is at most a part of the map, which is what large clients read).
   */
  async seatMap(
    eventId: string,
    section?: string,
    ifNoneMatch?: string,
    acceptEncoding?: string,
  ): Promise<SeatMapAnswer> {
    const sync = await this.snapshots.syncOf(eventId);
    await sync.refresh();
    const sectionNo = section === undefined ? undefined : sync.snapshot.layout.section(section);
    if (section !== undefined && sectionNo === undefined) {
      throw sectionNotFound(section);
    }
    // a revalidation that matches needs no body, so it does not wait for a template to be built
    if (etagMatches(ifNoneMatch, sync.snapshot.etag())) {
      return { etag: sync.snapshot.etag() };
    }
    const template = await sync.snapshot.layout.listTemplate('map', eventId);
    // from here to the body, synchronous: the ETag and the body are of one version (the map may have
    // moved on while the template was awaited, so the ETag is read, and compared, again)
    const snap = sync.snapshot;
    const etag = snap.etag();
    if (etagMatches(ifNoneMatch, etag)) {
      return { etag };
    }
    const body = renderSeatMap(snap, template, sectionNo);
    this.snapshots.accountIfCurrent(sync); // its size grew by the body (and the template, if just built)
    const encoding = sectionNo === undefined ? preferredEncoding(acceptEncoding) : undefined;
    const encoded =
      encoding &&
      // kept with `snap`: its size grew (a rebuild since replaced it, or the event left the cache and
      // came back as another keeper: nothing to account then)
      (await this.compression.encoded(snap, body, encoding, () => {
        if (sync.snapshot === snap) {
          this.snapshots.accountIfCurrent(sync);
        }
      }));
    mapBodies.inc({ encoding: encoded ? encoding : 'identity' });
    return encoded ? { etag, body: encoded, encoding } : { etag, body };
  }
}
