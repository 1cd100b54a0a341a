import type { AllocationRow } from './allocation.store';

/** Sections per event at most (CreateEventDto): a row's rank keeps its section's place below this. */
const SECTION_SLOTS = 128;

/**
 * An event's rows as the hold store's free-seat index keeps them, from its seats as posted (sections, then
 * rows, then seats by number). The default rank: front rows first (a row's place in its section, so
 * every section's first row comes before any second row), then the section's place in the layout.
 */
export function layoutRows(
  seats: Iterable<{ section: string; row: string; number: number; category: string }>,
): AllocationRow[] {
  const rows = new Map<string, AllocationRow>();
  const sections = new Map<string, number>();
  const rowsIn = new Map<string, number>();
  for (const s of seats) {
    const rowKey = `${s.section}-${s.row}`;
    const row = rows.get(rowKey);
    if (row) {
      row.seats = Math.max(row.seats, s.number);
      continue;
    }
    let section = sections.get(s.section);
    if (section === undefined) {
      section = sections.size;
      sections.set(s.section, section);
    }
    const place = rowsIn.get(s.section) ?? 0;
    rowsIn.set(s.section, place + 1);
    rows.set(rowKey, {
      rowKey,
      seats: s.number,
      rank: place * SECTION_SLOTS + section,
      section: s.section,
      category: s.category,
    });
  }
  return [...rows.values()];
}
