import { Logger } from '@nestjs/common';
import type { SeatChangeLog, SeatChanges, SeatMapHead } from '../../hold-store';
import { builds, countMismatches, refreshes } from '../seat-map.metrics';
import { EventSnapshot } from './event-snapshot';
import { SeatLayout } from './seat-layout';

/** Change-log entries read per call. */
const PULL_ENTRIES = 1000;
/** A snapshot more entries behind than this is rebuilt rather than replayed (a build is ~1 call per 1,000 seats). */
const MAX_PULLS = 20;
/** HSCAN COUNT of a build: each call touches about this many seats, so Redis is never busy for long. */
const SCAN_COUNT = 1000;
/** Builds retried when the log was trimmed past their start while they scanned (a very busy event). */
const BUILD_ATTEMPTS = 3;
/** Added to CONFIRM_TIMEOUT_MS for a build's confirm check (see SeatChangeLog.scan): the build's own time. */
const CONFIRM_WINDOW_MARGIN_MS = 60_000;

/** How a snapshot is built and kept: the change log, and CONFIRM_TIMEOUT_MS (see SeatChangeLog.scan). */
export interface SyncSource {
  log: SeatChangeLog;
  confirmTimeoutMs: number;
}

const logger = new Logger('SeatMap');

export type ChangeListener = (positions: number[]) => void;
/** Told when the snapshot was rebuilt because Redis lost the log: what clients hold is of another log. */
export type ResetListener = () => void;

/**
 * Keeps one event's snapshot up to date from the change log. `refresh()` reads only the entries after the
 * snapshot's version; concurrent callers share one read (each gets a read begun after its call, so a
 * client always sees its own hold). A snapshot the log no longer covers (trimmed) is rebuilt by a
 * chunked scan; so is one whose log Redis lost (another epoch, or the version went back: FLUSHALL, a
 * restart without persistence start the log again at version 1). Listeners (the event's stream feed) hear
 * every seat position an entry named, a hold's expiry changed or a trim's rebuild corrected, and, after a
 * loss, that everything they were sent is void (reset).
 */
export class SnapshotSync {
  private running?: Promise<void>;
  private next?: Promise<void>;
  private readonly listeners = new Set<ChangeListener>();
  private readonly resetListeners = new Set<ResetListener>();
  private mismatchReported = false;

  private readonly log: SeatChangeLog;

  private constructor(
    public snapshot: EventSnapshot,
    private readonly source: SyncSource,
  ) {
    this.log = source.log;
  }

  /** A snapshot built from a chunked scan of the event's seats, consistent at the version it reports. */
  static async build(eventId: string, layout: SeatLayout, source: SyncSource): Promise<SnapshotSync> {
    return new SnapshotSync(await buildSnapshot(eventId, layout, source, 'cold'), source);
  }

  get eventId(): string {
    return this.snapshot.eventId;
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onReset(listener: ResetListener): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  refresh(): Promise<void> {
    if (!this.running) {
      this.running = this.pull().finally(() => (this.running = undefined));
      return this.running;
    }
    // the read in flight began before this call: share the one after it
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.refresh();
      });
    return this.next;
  }

  /**
   * The seats a client at `version` has to hear about to be at the snapshot's version: those the change
   * log changed since (from memory when recent, else from the log in Redis) and the lapsed holds (their
   * expiry made no version). Null when the log no longer goes back that far, or the version is not one
   * this snapshot has seen, or of another epoch (Redis lost the change log since): the client needs a new
   * snapshot then.
   */
  async changedSince(version: number, epoch: string): Promise<Set<number> | null> {
    const snap = this.snapshot;
    if (version > snap.version || epoch !== snap.epoch) {
      return null;
    }
    let seats = snap.recent.since(version);
    if (!seats) {
      const target = snap.version;
      const read = await this.readSince(version, target);
      // what the snapshot applied while we read is in memory, unless a rebuild came in between
      const later = this.snapshot === snap ? snap.recent.since(target) : null;
      if (!read || !later) {
        return null;
      }
      later.forEach((p) => read.add(p));
      seats = read;
    }
    for (const p of snap.lapsedSeats()) {
      seats.add(p);
    }
    return seats;
  }

  /** The positions the log's entries (from, to] name; null if the log no longer has all of them. */
  private async readSince(from: number, to: number): Promise<Set<number> | null> {
    const out = new Set<number>();
    let at = from;
    for (let i = 0; i < MAX_PULLS && at < to; i++) {
      const c = await this.log.changesSince(this.eventId, at, PULL_ENTRIES);
      if (c.epoch !== this.snapshot.epoch || c.version < to || c.entries[0]?.version !== at + 1) {
        return null;
      }
      for (const entry of c.entries) {
        for (let k = 0; k < entry.seats.length; k += 2) {
          const p = this.snapshot.layout.positionOf(entry.seats[k]);
          if (p !== undefined) {
            out.add(p);
          }
        }
        at = entry.version;
      }
    }
    return at >= to ? out : null;
  }

  private async pull(): Promise<void> {
    refreshes.inc();
    const snap = this.snapshot;
    for (let i = 0; i < MAX_PULLS; i++) {
      const c = await this.log.changesSince(snap.eventId, snap.version, PULL_ENTRIES);
      if (c.epoch !== snap.epoch && !(snap.version === 0 && snap.epoch === '')) {
        return this.rebuild('another epoch: Redis lost the change log', true);
      }
      if (c.version < snap.version) {
        return this.rebuild('the version went back: Redis lost the change log', true);
      }
      // built before the event's first change: the log it follows is the one that change created
      snap.epoch = c.epoch;
      if (c.version > snap.version && c.entries[0]?.version !== snap.version + 1) {
        return this.rebuild('the change log was trimmed past the snapshot');
      }
      this.emit(snap.apply(c.entries, c.nowMs));
      if (snap.version >= c.version) {
        this.checkCounts(c);
        return;
      }
    }
    return this.rebuild(`more than ${MAX_PULLS * PULL_ENTRIES} changes behind`);
  }

  /** `lost`: Redis lost the log, so what clients were sent is of another log: they are reset, not corrected. */
  private async rebuild(reason: string, lost = false): Promise<void> {
    const fresh = await buildSnapshot(this.eventId, this.snapshot.layout, this.source, reason);
    const corrected = fresh.differences(this.snapshot);
    this.snapshot = fresh;
    if (lost) {
      this.resetListeners.forEach((listener) => listener());
    } else {
      this.emit(corrected);
    }
  }

  private emit(positions: number[]): void {
    if (positions.length > 0) {
      for (const listener of this.listeners) {
        listener(positions);
      }
    }
  }

  /**
   * The scripts keep held/booked counts beside the log; a snapshot at the same version must agree. A
   * disagreement means a seat changed without its log entry: reported (once per event per instance),
   * not repaired here, so a bad writer cannot make every reader rebuild in a loop.
   */
  private checkCounts(c: SeatChanges): void {
    const mine = this.snapshot.rawCounts();
    if (mine.held === c.held && mine.booked === c.booked) {
      return;
    }
    countMismatches.inc();
    if (!this.mismatchReported) {
      this.mismatchReported = true;
      logger.warn({
        msg: 'seat map snapshot disagrees with the kept counts (a seat changed without its log entry?)',
        eventId: this.eventId,
        version: c.version,
        snapshot: mine,
        kept: { held: c.held, booked: c.booked },
      });
    }
  }
}

/**
 * The build: the version first, then HSCAN chunks, then the log entries after that version, applied over
 * what the scan saw. Every seat that changed during the scan has its final state in those entries, so
 * the result is exactly the state at the last entry's version. If the log lost entries after the scan's
 * version meanwhile, the build starts again.
 */
async function buildSnapshot(
  eventId: string,
  layout: SeatLayout,
  { log, confirmTimeoutMs }: SyncSource,
  reason: string,
): Promise<EventSnapshot> {
  for (let attempt = 1; attempt <= BUILD_ATTEMPTS; attempt++) {
    const snap = new EventSnapshot(eventId, layout);
    const head = await log.head(eventId);
    // the general-admission areas at the head's version; the entries after it carry their later counts
    for (let i = 0; i + 1 < head.areas.length; i += 2) {
      snap.loadSeat(`@${head.areas[i]}`, head.areas[i + 1]);
    }
    let cursor = '0';
    do {
      const page = await log.scan(
        eventId,
        cursor,
        SCAN_COUNT,
        head.nowMs,
        confirmTimeoutMs + CONFIRM_WINDOW_MARGIN_MS,
      );
      for (let i = 0; i < page.seats.length; i += 2) {
        snap.loadSeat(page.seats[i], page.seats[i + 1]);
      }
      cursor = page.cursor;
    } while (cursor !== '0');
    const caughtUp = await catchUp(snap, head, log);
    if (caughtUp) {
      snap.finishBuild(caughtUp.version, caughtUp.nowMs, caughtUp.epoch);
      builds.inc();
      logger.log({
        msg: `seat map built (${reason})`,
        eventId,
        version: caughtUp.version,
        seats: layout.size,
      });
      await healCounts(snap, caughtUp, log);
      return snap;
    }
  }
  throw new Error(`seat map of ${eventId}: the change log moved past ${BUILD_ATTEMPTS} builds`);
}

/**
 * Loads the entries after the head's version into a snapshot being built; null if the log no longer has
 * them, or is another log than the head's (Redis lost it during the scan). A log created during the scan
 * of an event that had none (its first change) is the one the scan saw the start of.
 */
async function catchUp(
  snap: EventSnapshot,
  head: SeatMapHead,
  log: SeatChangeLog,
): Promise<SeatChanges | null> {
  let version = head.version;
  for (let i = 0; i < MAX_PULLS; i++) {
    const c = await log.changesSince(snap.eventId, version, PULL_ENTRIES);
    if (
      (c.epoch !== head.epoch && !(head.version === 0 && head.epoch === '')) ||
      c.version < version ||
      (c.version > version && c.entries[0]?.version !== version + 1)
    ) {
      return null;
    }
    for (const entry of c.entries) {
      for (let k = 0; k < entry.seats.length; k += 2) {
        snap.loadSeat(entry.seats[k], entry.seats[k + 1]);
      }
      version = entry.version;
    }
    if (version >= c.version) {
      return { ...c, version };
    }
  }
  return null;
}

/**
 * Counts kept by the scripts start at zero for an event whose seats predate the change log: a build,
 * which counted every seat, sets them (only if no change came in between), and they stay right after.
 */
async function healCounts(snap: EventSnapshot, c: SeatChanges, log: SeatChangeLog): Promise<void> {
  const mine = snap.rawCounts();
  if (mine.held !== c.held || mine.booked !== c.booked) {
    await log.setCounts(snap.eventId, snap.version, mine.held, mine.booked);
  }
}
