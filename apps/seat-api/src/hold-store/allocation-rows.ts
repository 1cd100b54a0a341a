import type { AllocationRow } from './allocation.store';

/** Sections per event at most (CreateEventDto): a row's default rank keeps its section's place below this. */
const SECTION_SLOTS = 128;
/** Ranks a layout gives are below this (CreateEventDto): rows it does not rank come after them. */
const LAYOUT_RANKS = 100_000;
/** A seat's letter in a row's access string (lua/allocation-index.lua). */
const ACCESS_LETTER = { accessible: 'a', companion: 'c' } as const;

/** What a row's seats tell the index: the layout's seats in posted order (CatalogueSeat). */
export interface LayoutSeat {
  section: string;
  row: string;
  number: number;
  category: string;
  rowRank?: number | null;
  access?: keyof typeof ACCESS_LETTER | null;
}

/**
 * An event's rows as the hold store's free-seat index keeps them, from its seats as posted (sections, then
 * rows, then seats by number). A row's rank: the layout's, when it gives one; else after every ranked
 * row, front rows first (a row's place in its section, so every section's first row comes before any
 * second row), then the section's place in the layout. Its access string marks wheelchair places 'a'
 * and companion seats 'c' by seat number ('.' elsewhere), or is '' when the row has neither.
 */
export function layoutRows(seats: Iterable<LayoutSeat>): AllocationRow[] {
  const rows = new Map<string, AllocationRow & { marks: string[] }>();
  const sections = new Map<string, number>();
  const rowsIn = new Map<string, number>();
  for (const s of seats) {
    const rowKey = `${s.section}-${s.row}`;
    let row = rows.get(rowKey);
    if (!row) {
      let section = sections.get(s.section);
      if (section === undefined) {
        section = sections.size;
        sections.set(s.section, section);
      }
      const place = rowsIn.get(s.section) ?? 0;
      rowsIn.set(s.section, place + 1);
      row = {
        rowKey,
        seats: 0,
        rank: s.rowRank ?? LAYOUT_RANKS + place * SECTION_SLOTS + section,
        section: s.section,
        category: s.category,
        access: '',
        marks: [],
      };
      rows.set(rowKey, row);
    }
    row.seats = Math.max(row.seats, s.number);
    if (s.access) {
      row.marks[s.number - 1] = ACCESS_LETTER[s.access];
    }
  }
  return [...rows.values()].map(({ marks, ...row }) => ({
    ...row,
    access: marks.length === 0 ? '' : Array.from({ length: row.seats }, (_, i) => marks[i] ?? '.').join(''),
  }));
}
