import type { LRUCache } from 'lru-cache';
import type { SeatAccess } from '@app/database';
import { meteredLru } from '../common/cache/metered-lru';
import { canonicalEventId } from '../common/pipes/event-id.pipe';

export interface CatalogueSeat {
  seatId: string;
  section: string;
  row: string;
  number: number;
  category: string;
  /** The row's rank as the layout gave it; null: the default order (hold-store/allocation-rows.ts). */
  rowRank?: number | null;
  access?: SeatAccess | null;
}

export type SeatsById = Map<string, CatalogueSeat>;

/** A general-admission area of the layout: places of one category, held and sold by quantity. */
export interface CatalogueArea {
  name: string;
  category: string;
  capacity: number;
  /** Its index among the layout's sections as posted. */
  position: number;
}

/**
 * One event's seats by id, and until when they may be held: the event's start +
 * HOLD_EVENT_RETENTION_SECONDS, after which the sweeper may delete the event's Redis keys.
 */
export class EventSeats extends Map<string, CatalogueSeat> {
  constructor(
    seats: Iterable<readonly [string, CatalogueSeat]>,
    readonly retainUntilMs: number,
    /** The event's general-admission areas by name, in the order posted. */
    readonly areas: ReadonlyMap<string, CatalogueArea> = new Map(),
  ) {
    super(seats);
  }
}

/**
 * Heap bytes of one cached seat, estimated from above: a fixed part (the seat object, its Map entry and the
 * Map's table share) plus each string (V8 header + characters, 8-byte aligned).
 */
const SEAT_FIXED_BYTES = 120; // with the row's rank and the seat's access among the seat's fields
const stringBytes = (s: string): number => 16 + Math.ceil(s.length / 8) * 8;

export function estimateSeatsBytes(seats: SeatsById): number {
  let bytes = 64; // the Map itself
  for (const s of seats.values()) {
    bytes +=
      SEAT_FIXED_BYTES +
      stringBytes(s.seatId) +
      stringBytes(s.section) +
      stringBytes(s.row) +
      stringBytes(s.category);
  }
  return bytes;
}

/**
 * Each event's seats, read once from PostgreSQL and then kept in a least-recently-used map bounded by an
 * estimated byte budget (CATALOGUE_CACHE_MAX_BYTES): a seat layout never changes, but the events an
 * instance serves do, and a large one costs about 20 MB. Concurrent first reads of one event share one
 * load. Unknown events and failed reads are not kept. In-flight loads are held apart from the budget:
 * there is one per event being read right now, so their number is bounded by the requests in progress.
 */
export class SeatCache {
  private readonly lru: LRUCache<string, Promise<EventSeats>>;
  private readonly loading = new Map<string, Promise<EventSeats | null>>();

  constructor(
    maxBytes: number,
    private readonly load: (eventId: string) => Promise<EventSeats | null>,
  ) {
    this.lru = meteredLru({ name: 'catalogue_seats', maxBytes });
  }

  get(eventId: string): Promise<EventSeats | null> {
    // ids are canonicalised at the edge (common/pipes/event-id.pipe.ts); a caller that skipped that would
    // key the cache, the locks and Redis by another spelling of the same event: fail loudly instead
    if (canonicalEventId(eventId) !== eventId) {
      throw new Error(`non-canonical event id ${JSON.stringify(eventId)} reached the seat cache`);
    }
    const hit = this.lru.get(eventId);
    if (hit) {
      return hit;
    }
    let pending = this.loading.get(eventId);
    if (!pending) {
      pending = this.load(eventId)
        .then((seats) => {
          if (seats) {
            this.lru.set(eventId, Promise.resolve(seats), { size: estimateSeatsBytes(seats) });
          }
          return seats;
        })
        .finally(() => this.loading.delete(eventId));
      this.loading.set(eventId, pending);
    }
    return pending;
  }

  clear(): void {
    this.lru.clear();
  }
}
