import { CatalogueSeat } from '../../catalogue/seat-cache';
import { EventSnapshot } from './event-snapshot';
import { SeatLayout } from './seat-layout';

/** Two seats, then the areas FLOOR and BALCONY (posted in that order). */
function layout(): SeatLayout {
  const seats: CatalogueSeat[] = [1, 2].map((n) => ({
    seatId: `S-A-${n}`,
    section: 'S',
    row: 'A',
    number: n,
    category: 'std',
  }));
  return new SeatLayout(new Map(seats.map((s) => [s.seatId, s])), [
    { name: 'FLOOR', category: 'standing', capacity: 10, position: 1 },
    { name: 'BALCONY', category: 'standing', capacity: 5, position: 2 },
  ]);
}

/** A snapshot built at version 1 from the areas' log fields "capacity|held|booked|blocked". */
function built(l: SeatLayout, fields: string[]): EventSnapshot {
  const snap = new EventSnapshot('ev-1', l);
  for (let i = 0; i < fields.length; i += 2) {
    snap.loadSeat(`@${fields[i]}`, fields[i + 1]);
  }
  snap.finishBuild(1, 1_000);
  return snap;
}

describe('EventSnapshot: general-admission areas', () => {
  it("lists the areas in the layout's order with their category, leaving out one Redis does not have", () => {
    const snap = built(layout(), ['BALCONY', '5|1|0|0', 'GONE', '3|0|0|0']);
    expect(snap.areas()).toEqual([
      { name: 'BALCONY', category: 'standing', capacity: 5, free: 4, held: 1, booked: 0, blocked: 0 },
    ]);
    snap.apply([{ version: 2, seats: ['@FLOOR', '10|2|3|1', 'S-A-1', 'B'] }], 2_000);
    expect(snap.areas().map((a) => [a.name, a.free])).toEqual([
      ['FLOOR', 4],
      ['BALCONY', 4],
    ]);
    expect(snap.takeChangedAreas().map((a) => a.name)).toEqual(['FLOOR']);
    expect(snap.takeChangedAreas()).toEqual([]);
  });

  it('a rebuild notes the areas that read differently from the snapshot it replaces, and only those', () => {
    const l = layout();
    const before = built(l, ['FLOOR', '10|2|0|0', 'BALCONY', '5|0|0|0']);
    const after = built(l, ['FLOOR', '10|0|2|0', 'BALCONY', '5|0|0|0']);
    expect(after.takeChangedAreas()).toEqual([]);
    after.noteAreaChanges(before);
    expect(after.takeChangedAreas()).toEqual([
      { name: 'FLOOR', category: 'standing', capacity: 10, free: 8, held: 0, booked: 2, blocked: 0 },
    ]);
  });
});
