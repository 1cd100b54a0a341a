import type { SeatListTemplate } from './seat-list-template';

/**
 * What a frame reads of its snapshot (an EventSnapshot): declared here so the snapshot, which keeps its
 * frame, and the frame, made from the snapshot, do not import each other.
 */
export interface FramedSnapshot {
  readonly eventId: string;
  readonly version: number;
  readonly streamId: string;
  /** One status byte a seat, in layout order; copied by the frame. */
  readonly shownStatuses: Uint8Array;
  /** The counts of the whole map, written into the event as they are. */
  counts(): unknown;
  /** The general-admission areas, written in as they are (left out when there are none). */
  areas(): unknown[];
}

/**
 * The stream's `snapshot` event of one representation (version, and lapsed holds), made piece by piece
 * on demand: the event-stream head, the layout's 'stream' seat-list template with the statuses written
 * in, the tail. It keeps a copy of the statuses (one byte a seat) rather than the rendered event (about
 * 80 bytes a seat), and is shared by every stream that starts at this representation: a client that
 * reads slowly, or not at all, holds a piece of it in its socket, never the whole map.
 */
export class SnapshotFrame {
  readonly version: number;
  /** Bytes of the whole event. */
  readonly length: number;
  private readonly head: Buffer;
  private readonly tail = Buffer.from('}\n\n');
  private readonly shown: Uint8Array;

  constructor(
    snap: FramedSnapshot,
    private readonly template: SeatListTemplate,
  ) {
    this.version = snap.version;
    const areas = snap.areas();
    const head = JSON.stringify({
      eventId: snap.eventId,
      version: snap.version,
      counts: snap.counts(),
      ...(areas.length > 0 ? { areas } : {}),
    });
    this.head = Buffer.from(`event: snapshot\nid: ${snap.streamId}\ndata: ${head.slice(0, -1)},"seats":`);
    this.shown = snap.shownStatuses.slice();
    this.length = this.head.length + template.listLength + this.tail.length;
  }

  /** Estimated memory (the template is the layout's, counted there). */
  get bytes(): number {
    return this.shown.byteLength + this.head.length + 64;
  }

  /** Bytes [at, at + max) of the event (fewer at its end). */
  piece(at: number, max: number): Buffer {
    const end = Math.min(this.length, at + max);
    const listStart = this.head.length;
    const listEnd = listStart + this.template.listLength;
    const parts: Buffer[] = [];
    if (at < listStart) {
      parts.push(this.head.subarray(at, Math.min(end, listStart)));
    }
    if (end > listStart && at < listEnd) {
      const from = Math.max(at, listStart) - listStart;
      const to = Math.min(end, listEnd) - listStart;
      parts.push(this.template.renderRange(this.shown, from, to));
    }
    if (end > listEnd) {
      parts.push(this.tail.subarray(Math.max(at, listEnd) - listEnd, end - listEnd));
    }
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  /** The whole event as one buffer (tests, and small maps). */
  whole(): Buffer {
    return this.piece(0, this.length);
  }
}
