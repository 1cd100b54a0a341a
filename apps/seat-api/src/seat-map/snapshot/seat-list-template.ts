import type { CatalogueSeat } from '../../catalogue/seat-cache';
import { STATUS } from './seat-status';

/**
 * Every status as the bytes of its slot in a rendered seat list: the JSON string, padded with spaces to
 * one width. JSON allows whitespace after a value, so `"status":"HELD"     }` parses as `"HELD"`, and any
 * status fits any slot.
 */
const SLOT_WIDTH = Math.max(...STATUS.map((s) => JSON.stringify(s).length));
const SLOTS: readonly Buffer[] = STATUS.map((s) => Buffer.from(JSON.stringify(s).padEnd(SLOT_WIDTH)));
/** Seats stringified between two yields to the event loop while a template is built. */
const BUILD_CHUNK = 5000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * An event's seat list (`[{…,"status":"AVAILABLE"},…]`, in layout order) rendered once, with the byte
 * offset of every seat's status slot. A body is then a copy of these bytes with the slots of the seats
 * that are not AVAILABLE overwritten: a memory copy plus one small write per held or booked seat,
 * instead of an object and a JSON.stringify per seat. For 100,000 seats that stringify took 80-230 ms on
 * the event loop for every new version of a map that changes all the time (a flash sale on that event),
 * and held up every other request meanwhile.
 *
 * The template itself is built by the same stringify, once per event and instance, in chunks with a
 * turn of the event loop between them.
 */
export class SeatListTemplate {
  private constructor(
    /** `[` seat `,` seat … `]`, every slot AVAILABLE. */
    private readonly list: Buffer,
    /** Byte offset of each position's status slot in `list`. */
    private readonly slotAt: Int32Array,
    /** Per section: [start, end) of its seats in `list` when they are consecutive in layout order, else null. */
    private readonly sectionRanges: ([number, number] | null)[],
    private readonly sectionSeats: Int32Array[],
  ) {}

  /**
   * `fields(seat)` gives the object to list for a seat, without its status (which comes last, in the
   * order the object's keys are written).
   */
  static async build(
    seats: readonly CatalogueSeat[],
    sectionSeats: Int32Array[],
    fields: (seat: CatalogueSeat) => object,
  ): Promise<SeatListTemplate> {
    const available = SLOTS[0].toString();
    const parts: string[] = [];
    const start = new Int32Array(seats.length + 1); // byte offset of each seat's text after the `[`
    let bytes = 1;
    for (let p = 0; p < seats.length; p++) {
      if (p > 0 && p % BUILD_CHUNK === 0) {
        await nextTurn();
      }
      const json = JSON.stringify({ ...fields(seats[p]), status: 'AVAILABLE' });
      // the status is the last key: its value is replaced by the padded slot
      const text = `${json.slice(0, -(JSON.stringify('AVAILABLE').length + 1))}${available}}`;
      parts.push(text);
      start[p] = bytes;
      bytes += Buffer.byteLength(text) + 1; // and the `,` (or the closing `]`)
    }
    start[seats.length] = bytes;
    const list = Buffer.from(`[${parts.join(',')}]`);
    const slotAt = new Int32Array(seats.length);
    for (let p = 0; p < seats.length; p++) {
      slotAt[p] = start[p + 1] - 2 - SLOT_WIDTH; // before the seat's `}` and the separator after it
    }
    const sectionRanges = sectionSeats.map((positions) => {
      const consecutive = positions.every((p, i) => i === 0 || p === positions[i - 1] + 1);
      if (!consecutive || positions.length === 0) {
        return null;
      }
      return [start[positions[0]], start[positions[positions.length - 1] + 1] - 1] as [number, number];
    });
    return new SeatListTemplate(list, slotAt, sectionRanges, sectionSeats);
  }

  get bytes(): number {
    return this.list.length + this.slotAt.byteLength;
  }

  /** Bytes of the whole list, `[` to `]`. */
  get listLength(): number {
    return this.list.length;
  }

  /**
   * Bytes [from, to) of the whole list with each seat's status from `shown`: a piece of a body made on
   * demand, so a stream writes a large map piece by piece without the whole body in memory.
   */
  renderRange(shown: Uint8Array, from: number, to: number): Buffer {
    const out = Buffer.allocUnsafe(to - from);
    this.list.copy(out, 0, from, to);
    // the first seat whose slot ends after `from` (slots are in position order)
    let lo = 0;
    let hi = this.slotAt.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.slotAt[mid] + SLOT_WIDTH <= from) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    for (let p = lo; p < this.slotAt.length && this.slotAt[p] < to; p++) {
      const status = shown[p];
      if (status !== 0) {
        const slot = SLOTS[status];
        // a slot may straddle either end of the range: only its bytes inside are written
        for (let k = Math.max(0, from - this.slotAt[p]); k < SLOT_WIDTH && this.slotAt[p] + k < to; k++) {
          out[this.slotAt[p] + k - from] = slot[k];
        }
      }
    }
    return out;
  }

  /** True when `section`'s list can be cut from this template (its seats are consecutive in the layout). */
  hasSection(section: number): boolean {
    return this.sectionRanges[section] !== null;
  }

  /**
   * `head` + the list (all seats, or one section's) with each seat's status from `shown` (indexes into
   * STATUS, by position) + `tail`, as one buffer.
   */
  render(head: string, shown: Uint8Array, tail: string, section?: number): Buffer {
    const range = section === undefined ? null : this.sectionRanges[section];
    if (section !== undefined && !range) {
      throw new Error(`section ${section}'s seats are not consecutive in the layout`);
    }
    const [from, to] = range ?? [1, this.list.length - 1]; // without the brackets
    const headBytes = Buffer.byteLength(head);
    const out = Buffer.allocUnsafe(headBytes + 2 + (to - from) + Buffer.byteLength(tail));
    let at = out.write(head);
    at += out.write('[', at);
    const base = at - from; // out offset of list offset 0
    at += this.list.copy(out, at, from, to);
    at += out.write(']', at);
    out.write(tail, at);
    const positions = section === undefined ? null : this.sectionSeats[section];
    const count = positions ? positions.length : shown.length;
    // byte by byte: a Buffer.copy call per seat costs more than the 11 bytes it copies
    for (let i = 0; i < count; i++) {
      const p = positions ? positions[i] : i;
      const status = shown[p];
      if (status !== 0) {
        const slot = SLOTS[status];
        const at = base + this.slotAt[p];
        for (let k = 0; k < SLOT_WIDTH; k++) {
          out[at + k] = slot[k];
        }
      }
    }
    return out;
  }
}
