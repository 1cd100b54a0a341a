import { CatalogueSeat } from '../../catalogue/seat-cache';
import { EventSnapshot } from './event-snapshot';
import { SeatLayout } from './seat-layout';
import { renderSeatMap, snapshotFrame } from './seat-map-render';

const HOUR = 3_600_000;

/** Seats in `sections`, each `perSection` seats; `interleave` lists them alternating between sections. */
function layoutOf(sections: string[], perSection: number, interleave = false): SeatLayout {
  const list: CatalogueSeat[] = [];
  for (let i = 0; i < perSection; i++) {
    for (const section of sections) {
      list.push({ seatId: `${section}-${i + 1}`, section, row: 'R1', number: i + 1, category: 'std' });
    }
  }
  const ordered = interleave ? list : [...list].sort((a, b) => a.section.localeCompare(b.section));
  return new SeatLayout(new Map(ordered.map((s) => [s.seatId, s])));
}

/** What a body was before templates: one object per seat, in layout order, stringified. */
function byObjects(snap: EventSnapshot, section?: number, withEventId = true) {
  const { layout, eventId } = snap;
  const positions = section === undefined ? layout.seats.map((_, p) => p) : [...layout.sectionSeats[section]];
  return {
    eventId,
    version: snap.version,
    counts: snap.counts(section),
    seats: positions.map((p) => ({
      ...(withEventId ? { eventId } : {}),
      ...layout.seats[p],
      status: snap.statusAt(p),
    })),
  };
}

/** A snapshot with seats held, booked, held then lapsed, and freed again. */
function busySnapshot(layout: SeatLayout): EventSnapshot {
  const snap = new EventSnapshot('ev-1', layout);
  snap.finishBuild(1, 1_000);
  const ids = layout.seats.map((s) => s.seatId);
  snap.apply(
    [
      { version: 2, seats: [ids[0], `H${10_000 + HOUR}`, ids[3], 'B'] },
      { version: 3, seats: [ids[5], 'H2000', ids[7], 'H0'] }, // the first lapses at 2,000; H0: confirming
      { version: 4, seats: [ids[ids.length - 1], 'B', ids[3], 'A'] },
    ],
    5_000,
  );
  return snap;
}

describe('seat-list templates', () => {
  it('make the same JSON as one object per seat, for the whole map and each section', async () => {
    const layout = layoutOf(['Stalls', 'Balcony', 'Box'], 40);
    const snap = busySnapshot(layout);
    const template = await layout.listTemplate('map', snap.eventId);
    expect(snap.counts()).toMatchObject({ held: 2, booked: 1 }); // every status is in the body
    expect(JSON.parse(renderSeatMap(snap, template).toString())).toEqual(byObjects(snap));
    for (let s = 0; s < layout.sections.length; s++) {
      expect(template.hasSection(s)).toBe(true);
      expect(JSON.parse(renderSeatMap(snap, template, s).toString())).toEqual(byObjects(snap, s));
    }
  });

  it('cope with seat ids and sections in any script (byte offsets, not characters)', async () => {
    const layout = layoutOf(['Parkett', 'Größe', '二階'], 7);
    const snap = busySnapshot(layout);
    const template = await layout.listTemplate('map', snap.eventId);
    expect(JSON.parse(renderSeatMap(snap, template).toString())).toEqual(byObjects(snap));
    const s = layout.section('二階')!;
    expect(JSON.parse(renderSeatMap(snap, template, s).toString())).toEqual(byObjects(snap, s));
  });

  it('fall back to one object per seat for a section whose seats are not consecutive', async () => {
    const layout = layoutOf(['A', 'B'], 5, true);
    const snap = busySnapshot(layout);
    const template = await layout.listTemplate('map', snap.eventId);
    expect(template.hasSection(0)).toBe(false);
    expect(JSON.parse(renderSeatMap(snap, template, 0).toString())).toEqual(byObjects(snap, 0));
    expect(JSON.parse(renderSeatMap(snap, template).toString())).toEqual(byObjects(snap));
  });

  it('make the stream snapshot event: seats without eventId, id = version, one data line', async () => {
    const layout = layoutOf(['S'], 30);
    const snap = busySnapshot(layout);
    const frame = snapshotFrame(snap, await layout.listTemplate('stream', snap.eventId));
    const event = frame.whole().toString();
    const [kind, id, data, ...rest] = event.split('\n');
    expect(kind).toBe('event: snapshot');
    expect(id).toBe(`id: ${snap.version}`);
    expect(rest).toEqual(['', '']);
    expect(JSON.parse(data.slice('data: '.length))).toEqual(byObjects(snap, undefined, false));
  });

  it('make the stream snapshot event piece by piece: any cut gives the same bytes', async () => {
    const layout = layoutOf(['Parkett', 'Größe'], 30);
    const snap = busySnapshot(layout);
    const frame = snapshotFrame(snap, await layout.listTemplate('stream', snap.eventId));
    const whole = frame.whole();
    expect(whole.length).toBe(frame.length);
    for (const size of [1, 7, 11, 64, 1000]) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < frame.length; at += size) {
        pieces.push(frame.piece(at, size));
      }
      expect(Buffer.concat(pieces).equals(whole)).toBe(true);
    }
    // one frame per representation: a change makes the next one
    expect(snapshotFrame(snap, await layout.listTemplate('stream', snap.eventId))).toBe(frame);
    snap.apply([{ version: 5, seats: [layout.seats[1].seatId, 'B'] }], 5_000);
    expect(snapshotFrame(snap, await layout.listTemplate('stream', snap.eventId))).not.toBe(frame);
  });

  it('are built once per layout and variant, and counted in its bytes', async () => {
    const layout = layoutOf(['S'], 50);
    const before = layout.bytes;
    const [a, b] = await Promise.all([layout.listTemplate('map', 'e'), layout.listTemplate('map', 'e')]);
    expect(a).toBe(b);
    expect(layout.bytes - before).toBe(a.bytes);
    await layout.listTemplate('stream', 'e');
    expect(layout.bytes).toBeGreaterThan(before + a.bytes);
  });
});
