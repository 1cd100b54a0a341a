import { AreaCounts, EventSnapshot } from './event-snapshot';
import { SeatListTemplate } from './seat-list-template';
import { SnapshotFrame } from './snapshot-frame';

/**
 * The bodies made from a snapshot. The whole map of a large event is megabytes of JSON, so the bodies
 * every client of a version gets alike (the full GET) are made once per representation and kept with
 * the snapshot, encoded, until its next change (the stream's first event is a frame made piece by piece): a read then costs a write
 * of bytes that are ready. Making one is a copy of the layout's seat-list template with the statuses
 * written in (seat-list-template.ts); the caller awaits the template first, so that what follows the
 * await (the ETag, the body) is one synchronous piece of one version.
 */

/** GET /v1/events/{eventId}/seats: SeatMapView, optionally one section's seats and counts. */
export function renderSeatMap(snap: EventSnapshot, template: SeatListTemplate, section?: number): Buffer {
  const render = () => {
    const { eventId } = snap;
    if (section !== undefined && !template.hasSection(section)) {
      return renderSectionByObjects(snap, section);
    }
    const head = JSON.stringify({
      eventId,
      version: snap.version,
      counts: snap.counts(section),
      ...areasOf(snap, section),
    }).slice(0, -1);
    return template.render(`${head},"seats":`, snap.shownStatuses, '}', section);
  };
  return section === undefined ? snap.rendering('map', render) : render();
}

/**
 * A section whose seats are not consecutive in the layout (the catalogue lists seats section by section,
 * so only a layout made otherwise has one): one object per seat, as every body was made before templates.
 */
function renderSectionByObjects(snap: EventSnapshot, section: number): Buffer {
  const { layout, eventId } = snap;
  const positions = layout.sectionSeats[section];
  const seats = Array.from(positions, (p) => ({ eventId, ...layout.seats[p], status: snap.statusAt(p) }));
  return Buffer.from(
    JSON.stringify({
      eventId,
      version: snap.version,
      counts: snap.counts(section),
      ...areasOf(snap, section),
      seats,
    }),
  );
}

/** The map's general-admission areas, when it has any and the body is the whole map. */
export function areasOf(snap: EventSnapshot, section?: number): { areas?: AreaCounts[] } {
  const areas = snap.areas();
  return section === undefined && areas.length > 0 ? { areas } : {};
}

/**
 * The stream's `snapshot` event (id and data) of the current representation, as a frame written piece by
 * piece (snapshot-frame.ts); `template` is the layout's 'stream' one. One frame per representation,
 * shared by every stream that starts at it.
 */
export function snapshotFrame(snap: EventSnapshot, template: SeatListTemplate): SnapshotFrame {
  return snap.frame(() => new SnapshotFrame(snap, template));
}

/** A `changes` event: the current status of each position given. */
export function changesEvent(snap: EventSnapshot, positions: Iterable<number>): string {
  const changes: { seatId: string; status: string }[] = [];
  for (const p of positions) {
    changes.push({ seatId: snap.layout.seats[p].seatId, status: snap.statusAt(p) });
  }
  return sseEvent(
    'changes',
    snap.streamId,
    JSON.stringify({ version: snap.version, changes, counts: snap.counts() }),
  );
}

/**
 * An `areas` event: the general-admission areas that changed, each with its places now (one small frame,
 * whatever an area's capacity).
 */
export function areasEvent(snap: EventSnapshot, areas: AreaCounts[]): string {
  return sseEvent('areas', snap.streamId, JSON.stringify({ version: snap.version, areas }));
}

/** One Server-Sent Event; `data` is one line of JSON (JSON.stringify never writes a raw newline). */
function sseEvent(event: 'changes' | 'areas', id: string, data: string): string {
  return `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}
