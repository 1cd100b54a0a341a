import { EventSnapshot } from './event-snapshot';

/**
 * The bodies made from a snapshot. The whole map of a large event is megabytes of JSON, so the bodies
 * every client of a version gets alike (the full GET, the stream's first event) are made once per
 * representation and kept with the snapshot, encoded, until its next change: a read then costs a write
 * of bytes that are ready.
 */

/** GET /v1/events/{eventId}/seats: SeatMapView, optionally one section's seats and counts. */
export function renderSeatMap(snap: EventSnapshot, section?: number): Buffer {
  const render = () => {
    const { layout, eventId } = snap;
    const positions = section === undefined ? null : layout.sectionSeats[section];
    const count = positions ? positions.length : layout.size;
    const seats = new Array<object>(count);
    for (let i = 0; i < count; i++) {
      const p = positions ? positions[i] : i;
      seats[i] = { eventId, ...layout.seats[p], status: snap.statusAt(p) };
    }
    return Buffer.from(
      JSON.stringify({ eventId, version: snap.version, counts: snap.counts(section), seats }),
    );
  };
  return section === undefined ? snap.rendering('map', render) : render();
}

/** The stream's `snapshot` event, whole (id and data). */
export function snapshotEvent(snap: EventSnapshot): Buffer {
  return snap.rendering('stream', () => {
    const { layout } = snap;
    const seats = new Array<object>(layout.size);
    for (let p = 0; p < layout.size; p++) {
      seats[p] = { ...layout.seats[p], status: snap.statusAt(p) };
    }
    const data = JSON.stringify({
      eventId: snap.eventId,
      version: snap.version,
      counts: snap.counts(),
      seats,
    });
    return Buffer.from(sseEvent('snapshot', snap.version, data));
  });
}

/** A `changes` event: the current status of each position given. */
export function changesEvent(snap: EventSnapshot, positions: Iterable<number>): string {
  const changes: { seatId: string; status: string }[] = [];
  for (const p of positions) {
    changes.push({ seatId: snap.layout.seats[p].seatId, status: snap.statusAt(p) });
  }
  return sseEvent(
    'changes',
    snap.version,
    JSON.stringify({ version: snap.version, changes, counts: snap.counts() }),
  );
}

/** One Server-Sent Event; `data` is one line of JSON (JSON.stringify never writes a raw newline). */
function sseEvent(event: 'snapshot' | 'changes', id: number, data: string): string {
  return `event: ${event}\nid: ${id}\ndata: ${data}\n\n`;
}
