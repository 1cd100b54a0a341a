import { CatalogueArea, CatalogueSeat, estimateSeatsBytes, SeatsById } from '../../catalogue/seat-cache';
import { SeatListTemplate } from './seat-list-template';

/** The seat lists bodies are made of: GET's (each seat names its event) and the stream's first event's. */
export type ListVariant = 'map' | 'stream';

/**
 * An event's seats in the order the map lists them (the catalogue's), each known by its position, and
 * grouped by section: fixed for the event's life, so a snapshot keeps its states in typed arrays indexed
 * by position instead of one object per seat.
 */
export class SeatLayout {
  readonly seats: CatalogueSeat[];
  private readonly positions = new Map<string, number>();
  readonly sections: string[] = [];
  /** Section number of each position. */
  readonly sectionOf: Uint16Array;
  /** Positions of each section, in map order. */
  readonly sectionSeats: Int32Array[] = [];
  private readonly sectionNumber = new Map<string, number>();
  private readonly fixedBytes: number;
  private readonly areaByName: ReadonlyMap<string, CatalogueArea>;
  private readonly templates = new Map<ListVariant, Promise<SeatListTemplate>>();
  private templateBytes = 0;

  constructor(
    seats: SeatsById,
    /** The event's general-admission areas in the order posted: counted places, not seats (no position). */
    readonly areas: readonly CatalogueArea[] = [],
  ) {
    this.seats = [...seats.values()];
    this.areaByName = new Map(areas.map((a) => [a.name, a]));
    this.sectionOf = new Uint16Array(this.seats.length);
    const members: number[][] = [];
    this.seats.forEach((seat, i) => {
      this.positions.set(seat.seatId, i);
      let n = this.sectionNumber.get(seat.section);
      if (n === undefined) {
        n = this.sections.length;
        this.sections.push(seat.section);
        this.sectionNumber.set(seat.section, n);
        members.push([]);
      }
      this.sectionOf[i] = n;
      members[n].push(i);
    });
    this.sectionSeats = members.map((m) => Int32Array.from(m));
    // the seat objects are the catalogue cache's (counted again here: that cache may drop them first),
    // plus per seat a position map entry (~48 B), an array slot, a section number and a section slot
    this.fixedBytes = estimateSeatsBytes(seats) + this.seats.length * (48 + 8 + 2 + 4) + areas.length * 256;
  }

  /** Estimated memory: the seats, the indexes, and the seat-list templates built so far. */
  get bytes(): number {
    return this.fixedBytes + this.templateBytes;
  }

  /**
   * The variant's seat-list template (seat-list-template.ts), built on first use and kept for the
   * layout's life: concurrent first callers share one build.
   */
  listTemplate(variant: ListVariant, eventId: string): Promise<SeatListTemplate> {
    let template = this.templates.get(variant);
    if (!template) {
      // the seat map's fields only (the catalogue's seat also carries what best-available reads: rank, access)
      const shown = ({ seatId, section, row, number, category }: CatalogueSeat) => ({
        seatId,
        section,
        row,
        number,
        category,
      });
      const fields = variant === 'map' ? (seat: CatalogueSeat) => ({ eventId, ...shown(seat) }) : shown;
      template = SeatListTemplate.build(this.seats, this.sectionSeats, fields).then((built) => {
        this.templateBytes += built.bytes;
        return built;
      });
      template.catch(() => this.templates.delete(variant));
      this.templates.set(variant, template);
    }
    return template;
  }

  get size(): number {
    return this.seats.length;
  }

  /** The general-admission area of that name, or undefined. */
  area(name: string): CatalogueArea | undefined {
    return this.areaByName.get(name);
  }

  positionOf(seatId: string): number | undefined {
    return this.positions.get(seatId);
  }

  /** The section's number, or undefined for a section this event does not have. */
  section(name: string): number | undefined {
    return this.sectionNumber.get(name);
  }
}
