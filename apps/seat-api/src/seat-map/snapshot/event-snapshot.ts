import type { SeatChangeEntry, SeatCode } from '../../hold-store';
import { ExpiryHeap } from './expiry-heap';
import { RecentChanges } from './recent-changes';
import { SeatLayout } from './seat-layout';
import type { SnapshotFrame } from './snapshot-frame';
import { SeatStatus, STATUS } from './seat-status';

export type { SeatStatus } from './seat-status';
export { STATUS } from './seat-status';
const AVAILABLE = 0;
const HELD = 1;
const BOOKED = 2;

/** A general-admission area's places at the snapshot's version (the log's '@<area>' fields). */
export interface AreaCounts {
  name: string;
  capacity: number;
  free: number;
  held: number;
  booked: number;
  blocked: number;
}

export interface SeatCounts {
  total: number;
  available: number;
  held: number;
  booked: number;
}

/**
 * One event's seat map at one change-log version, in memory: per seat what Redis has (free, held until
 * expireAt, held while confirming, booked) and what the map shows, plus counts per section, all kept up
 * to date change by change (nothing here ever walks every seat, except a build).
 *
 * Lazy expiry: a held seat shows AVAILABLE once Redis time passes its expireAt, before any sweeper frees
 * it (as the hold scripts treat it: such a seat can be taken). `advance(now)` applies that from a heap of
 * expiry times; such "lapsed" seats stay listed until the sweeper's change arrives, because the map's
 * representation then depends on the time as well as the version (see etag()).
 */
export class EventSnapshot {
  version = 0;
  /** The change log's epoch the version is of (seat-change-log.ts): set by the build, fixed after. */
  epoch = '';
  nowMs = 0;
  /** What the seats hash holds: 0 free, 1 held, 2 booked. */
  private readonly raw: Uint8Array;
  /** For held seats: expireAt in ms, 0 for a confirm in flight (held whatever the time). */
  private readonly expireAt: Float64Array;
  /** What the map shows: indexes into STATUS. */
  private readonly shown: Uint8Array;
  /** Per section: seats shown HELD, seats shown BOOKED. */
  private readonly sectionCounts: Int32Array;
  private rawHeld = 0;
  private rawBooked = 0;
  private readonly heap = new ExpiryHeap();
  private readonly lapsed = new Set<number>();
  readonly recent = new RecentChanges();
  /** The event's general-admission areas, by name, in the layout's order once known. */
  private readonly areaCounts = new Map<string, AreaCounts>();
  /** Areas changed since the stream last took them (takeChangedAreas). */
  private readonly changedAreas = new Set<string>();
  /** Rendered bodies of this version (see seat-map-render.ts), dropped on any change. */
  private rendered = new Map<string, Buffer>();
  private renderedBytes = 0;
  /** The stream's snapshot frame of this representation, dropped with the rendered bodies. */
  private streamFrame?: SnapshotFrame;
  /** Counts the changes that dropped the rendered bodies: a body made off the event loop keeps its start's. */
  private generation = 0;

  constructor(
    readonly eventId: string,
    readonly layout: SeatLayout,
  ) {
    this.raw = new Uint8Array(layout.size);
    this.expireAt = new Float64Array(layout.size);
    this.shown = new Uint8Array(layout.size);
    this.sectionCounts = new Int32Array(layout.sections.length * 2);
  }

  /** During a build: a seat as one scan chunk or log entry has it. Statuses follow in finishBuild(). */
  loadSeat(seatId: string, code: SeatCode): void {
    if (seatId.startsWith('@')) {
      this.setArea(seatId.slice(1), code);
      return;
    }
    const p = this.layout.positionOf(seatId);
    if (p !== undefined) {
      this.setRaw(p, code);
    }
  }

  /** Ends a build: the snapshot is at `version`; statuses, counts and expiries follow from the raw states. */
  finishBuild(version: number, nowMs: number, epoch = ''): void {
    this.version = version;
    this.epoch = epoch;
    this.nowMs = nowMs;
    for (let p = 0; p < this.raw.length; p++) {
      this.show(p, this.derive(p));
      if (this.raw[p] === HELD && this.expireAt[p] > 0) {
        if (this.expireAt[p] > nowMs) {
          this.heap.push(this.expireAt[p], p);
        } else {
          this.lapsed.add(p);
        }
      }
    }
    this.recent.reset(version);
    // a stream starts with a snapshot, which carries every area
    this.changedAreas.clear();
  }

  /**
   * Applies change-log entries (oldest first) and the expiries due at `nowMs`. Returns every position an
   * entry named or an expiry changed: streams send each of them with its current status.
   */
  apply(entries: SeatChangeEntry[], nowMs: number): number[] {
    this.nowMs = Math.max(this.nowMs, nowMs);
    const touched: number[] = [];
    for (const entry of entries) {
      const positions: number[] = [];
      for (let i = 0; i < entry.seats.length; i += 2) {
        if (entry.seats[i].startsWith('@')) {
          this.setArea(entry.seats[i].slice(1), entry.seats[i + 1]);
          continue;
        }
        const p = this.layout.positionOf(entry.seats[i]);
        if (p !== undefined) {
          this.setSeat(p, entry.seats[i + 1]);
          positions.push(p);
        }
      }
      this.version = entry.version;
      this.recent.add(entry.version, Int32Array.from(positions));
      touched.push(...positions);
    }
    this.heap.popDue(this.nowMs, (p, at) => {
      if (this.raw[p] === HELD && this.expireAt[p] === at && this.shown[p] === HELD) {
        this.lapsed.add(p);
        this.show(p, AVAILABLE);
        touched.push(p);
      }
    });
    this.heap.compactIfMostlyStale(this.rawHeld, (p, at) => this.raw[p] === HELD && this.expireAt[p] === at);
    if (touched.length > 0 || entries.length > 0) {
      this.dropRendered();
    }
    return touched;
  }

  /** What the map shows, by position (indexes into STATUS): read by the templates, never written. */
  get shownStatuses(): Uint8Array {
    return this.shown;
  }

  statusAt(position: number): SeatStatus {
    return STATUS[this.shown[position]];
  }

  /** The general-admission areas, in the layout's order ([] when it has none). */
  areas(): AreaCounts[] {
    return [...this.areaCounts.values()];
  }

  /** The areas changed since the last call (for the stream's `areas` events), and forgets them. */
  takeChangedAreas(): AreaCounts[] {
    const changed = [...this.changedAreas].map((name) => this.areaCounts.get(name)!);
    this.changedAreas.clear();
    return changed;
  }

  /** A log field of an area: "capacity|held|booked|blocked" (hold-store/lua/places.lua). */
  private setArea(name: string, value: string): void {
    const [capacity, held, booked, blocked] = value.split('|').map(Number);
    if (![capacity, held, booked, blocked].every(Number.isFinite)) {
      return;
    }
    const free = Math.max(0, capacity - held - booked - blocked);
    this.areaCounts.set(name, { name, capacity, free, held, booked, blocked });
    this.changedAreas.add(name);
  }

  counts(section?: number): SeatCounts {
    const total = section === undefined ? this.layout.size : this.layout.sectionSeats[section].length;
    let held = 0;
    let booked = 0;
    for (let s = 0; s < this.layout.sections.length; s++) {
      if (section === undefined || s === section) {
        held += this.sectionCounts[2 * s];
        booked += this.sectionCounts[2 * s + 1];
      }
    }
    return { total, available: total - held - booked, held, booked };
  }

  /** 'H' and 'B' seats as the seats hash has them (lapsed holds included): what the kept counts count. */
  rawCounts(): { held: number; booked: number } {
    return { held: this.rawHeld, booked: this.rawBooked };
  }

  /**
   * The representation's validator: the version (with its epoch), and how many held seats lapsed since (a weak ETag, as
   * the same version reads differently once a hold runs out). Both are the same on every instance at the
   * same version and time: lapsed seats are always the ones with the earliest expireAt.
   */
  etag(): string {
    return this.lapsed.size === 0 ? `W/"${this.streamId}"` : `W/"${this.streamId}.${this.lapsed.size}"`;
  }

  /**
   * The version as streams name it (`id:`) and ETags carry it: with the log's epoch, so a version of a
   * log Redis lost never passes for the same number in the new one.
   */
  get streamId(): string {
    return this.epoch ? `${this.epoch}:${this.version}` : String(this.version);
  }

  /** Seats whose hold ran out but that the sweeper has not freed yet (a resuming stream sends them too). */
  lapsedSeats(): Iterable<number> {
    return this.lapsed;
  }

  /** A rendered body of the current representation, made once by `render` and kept until a change. */
  rendering(key: string, render: () => Buffer): Buffer {
    let body = this.rendered.get(key);
    if (body === undefined) {
      body = render();
      this.rendered.set(key, body);
      this.renderedBytes += body.length;
    }
    return body;
  }

  /** The stream's snapshot frame of the current representation, made once by `make`. */
  frame(make: () => SnapshotFrame): SnapshotFrame {
    this.streamFrame ??= make();
    return this.streamFrame;
  }

  /** A body kept for the current representation, if one was made. */
  renderedBody(key: string): Buffer | undefined {
    return this.rendered.get(key);
  }

  /** Identifies the current representation's bodies: it changes whenever they are dropped. */
  get renderGeneration(): number {
    return this.generation;
  }

  /**
   * Keeps a body made asynchronously (a compressed map) from the representation of `generation`; false,
   * and nothing kept, when the snapshot changed since: the body would describe a version that is gone.
   */
  keepRendered(key: string, body: Buffer, generation: number): boolean {
    if (generation !== this.generation || this.rendered.has(key)) {
      return false;
    }
    this.rendered.set(key, body);
    this.renderedBytes += body.length;
    return true;
  }

  get bytes(): number {
    const perSeat = this.raw.length * (1 + 8 + 1);
    return (
      this.layout.bytes +
      perSeat +
      this.heap.bytes +
      this.recent.bytes +
      this.lapsed.size * 24 +
      this.renderedBytes +
      (this.streamFrame?.bytes ?? 0)
    );
  }

  /** The positions whose shown status differs from `other`'s (same layout): what a rebuild changed. */
  differences(other: EventSnapshot): number[] {
    const out: number[] = [];
    for (let p = 0; p < this.shown.length; p++) {
      if (this.shown[p] !== other.shown[p]) {
        out.push(p);
      }
    }
    return out;
  }

  private setSeat(p: number, code: SeatCode): void {
    this.lapsed.delete(p);
    this.setRaw(p, code);
    const status = this.derive(p);
    if (status === HELD && this.expireAt[p] > 0) {
      this.heap.push(this.expireAt[p], p);
    } else if (this.raw[p] === HELD && this.expireAt[p] > 0) {
      this.lapsed.add(p); // logged already past its expiry (a script that read an old clock)
    }
    this.show(p, status);
  }

  private setRaw(p: number, code: SeatCode): void {
    const before = this.raw[p];
    const after = code === 'B' ? BOOKED : code.startsWith('H') ? HELD : AVAILABLE;
    this.rawHeld += (after === HELD ? 1 : 0) - (before === HELD ? 1 : 0);
    this.rawBooked += (after === BOOKED ? 1 : 0) - (before === BOOKED ? 1 : 0);
    this.raw[p] = after;
    this.expireAt[p] = after === HELD ? Number(code.slice(1)) : 0;
  }

  private derive(p: number): number {
    const raw = this.raw[p];
    if (raw !== HELD) {
      return raw;
    }
    return this.expireAt[p] === 0 || this.expireAt[p] > this.nowMs ? HELD : AVAILABLE;
  }

  /** Sets what the map shows for a seat, keeping the section counts. */
  private show(p: number, status: number): void {
    const before = this.shown[p];
    if (before === status) {
      return;
    }
    const s = 2 * this.layout.sectionOf[p];
    if (before !== AVAILABLE) {
      this.sectionCounts[s + before - 1]--;
    }
    if (status !== AVAILABLE) {
      this.sectionCounts[s + status - 1]++;
    }
    this.shown[p] = status;
  }

  private dropRendered(): void {
    this.generation++;
    this.streamFrame = undefined;
    if (this.rendered.size > 0) {
      this.rendered = new Map();
      this.renderedBytes = 0;
    }
  }
}
