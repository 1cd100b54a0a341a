import { CatalogueSeat, estimateSeatsBytes, SeatsById } from '../../catalogue/seat-cache';

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
  readonly bytes: number;

  constructor(seats: SeatsById) {
    this.seats = [...seats.values()];
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
    this.bytes = estimateSeatsBytes(seats) + this.seats.length * (48 + 8 + 2 + 4);
  }

  get size(): number {
    return this.seats.length;
  }

  positionOf(seatId: string): number | undefined {
    return this.positions.get(seatId);
  }

  /** The section's number, or undefined for a section this event does not have. */
  section(name: string): number | undefined {
    return this.sectionNumber.get(name);
  }
}
