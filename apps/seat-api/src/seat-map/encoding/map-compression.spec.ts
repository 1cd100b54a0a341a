import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CatalogueSeat } from '../../catalogue/seat-cache';
import { renderSeatMap } from '../snapshot/seat-map-render';
import { EventSnapshot } from '../snapshot/event-snapshot';
import { SeatLayout } from '../snapshot/seat-layout';
import { MIN_COMPRESS_BYTES, SeatMapCompression } from './map-compression';

/** A real snapshot of `size` seats at version 1, all free. */
function snapshotOf(size: number, eventId = 'e1'): EventSnapshot {
  const seats = new Map<string, CatalogueSeat>();
  for (let i = 0; i < size; i++) {
    const seatId = `S-R${Math.floor(i / 100) + 1}-${(i % 100) + 1}`;
    seats.set(seatId, {
      seatId,
      section: 'S',
      row: `R${Math.floor(i / 100) + 1}`,
      number: (i % 100) + 1,
      category: 'standard',
    });
  }
  const snap = new EventSnapshot(eventId, new SeatLayout(seats));
  snap.finishBuild(1, Date.now());
  return snap;
}

/** The map's seat-list template, so that bodies are made synchronously, as the service makes them. */
const templateOf = (snap: EventSnapshot) => snap.layout.listTemplate('map', snap.eventId);

/** The next version: one seat held for an hour. */
function change(snap: EventSnapshot, version: number): void {
  snap.apply([{ version, seats: ['S-R1-1', `H${Date.now() + 3_600_000}`] }], Date.now());
}

describe('SeatMapCompression', () => {
  it('keeps one body per representation and coding, shared by the reads that came while it was made', async () => {
    const compression = new SeatMapCompression();
    const snap = snapshotOf(5000);
    const tpl = await templateOf(snap);
    const identity = renderSeatMap(snap, tpl);
    const bytesBefore = snap.bytes;
    let kept = 0;
    const reads = Array.from({ length: 5 }, () => compression.encoded(snap, identity, 'gzip', () => kept++));
    const bodies = await Promise.all(reads.map((r) => Promise.resolve(r)));
    expect(kept).toBe(1);
    expect(new Set(bodies).size).toBe(1); // the very same Buffer
    expect(gunzipSync(bodies[0]!).equals(identity)).toBe(true);
    expect(snap.renderedBody('map.gzip')).toBe(bodies[0]);
    expect(snap.bytes - bytesBefore).toBe(bodies[0]!.length); // counted in the snapshot's size
    expect(compression.encoded(snap, identity, 'gzip', () => kept++)).toBe(bodies[0]); // ready: no wait
    const br = await compression.encoded(snap, identity, 'br', () => kept++);
    expect(brotliDecompressSync(br!).equals(identity)).toBe(true);
    expect(kept).toBe(2);
  });

  it('makes a read of a newer version wait for the running compression, then compresses its own once', async () => {
    const compression = new SeatMapCompression();
    const snap = snapshotOf(5000);
    const tpl = await templateOf(snap);
    const old = renderSeatMap(snap, tpl);
    const kept: string[] = [];
    const first = compression.encoded(snap, old, 'gzip', () => kept.push('old'));
    change(snap, 2); // the map moves on while the old version is in the thread pool
    const fresh = renderSeatMap(snap, tpl);
    // three reads of the new version: all wait, and share one compression of it (not identity, not three)
    const waiting = [1, 2, 3].map(() => compression.encoded(snap, fresh, 'gzip', () => kept.push('fresh')));
    expect(waiting.every((w) => typeof (w as Promise<unknown>)?.then === 'function')).toBe(true);
    // the read that came first gets its own (old) representation; it is not kept for the new version
    expect(gunzipSync((await first)!).equals(old)).toBe(true);
    const bodies = await Promise.all(waiting.map((w) => Promise.resolve(w)));
    expect(new Set(bodies).size).toBe(1);
    expect(gunzipSync(bodies[0]!).equals(fresh)).toBe(true);
    expect(kept).toEqual(['fresh']);
    expect(snap.renderedBody('map.gzip')).toBe(bodies[0]);
  });

  it('sends identity after waiting out MAX_WAITS other compressions (a map changing faster than it compresses)', async () => {
    const compression = new SeatMapCompression();
    const snap = snapshotOf(5000);
    const tpl = await templateOf(snap);
    const reads: Promise<Buffer | undefined>[] = [];
    // versions 1..6, one read each, all while the first compression runs: each later one queues behind more
    for (let v = 2; v <= 7; v++) {
      reads.push(
        Promise.resolve(compression.encoded(snap, renderSeatMap(snap, tpl), 'gzip', () => undefined)),
      );
      change(snap, v);
    }
    const bodies = await Promise.all(reads);
    expect(bodies[0]).toBeInstanceOf(Buffer); // the first started it
    expect(bodies.some((b) => b === undefined)).toBe(true); // someone gave up waiting: identity
  });

  it('waits for another coding of the same version, then makes its own', async () => {
    const compression = new SeatMapCompression();
    const snap = snapshotOf(5000);
    const tpl = await templateOf(snap);
    const identity = renderSeatMap(snap, tpl);
    const br = compression.encoded(snap, identity, 'br', () => undefined);
    const gzip = await compression.encoded(snap, identity, 'gzip', () => undefined);
    expect(gunzipSync(gzip!).equals(identity)).toBe(true);
    expect(brotliDecompressSync((await br)!).equals(identity)).toBe(true);
  });

  it('compresses per event: another event does not wait behind this one', async () => {
    const compression = new SeatMapCompression();
    const a = snapshotOf(5000, 'a');
    const tplA = await templateOf(a);
    const b = snapshotOf(5000, 'b');
    const tplB = await templateOf(b);
    const [ga, gb] = await Promise.all([
      compression.encoded(a, renderSeatMap(a, tplA), 'gzip', () => undefined),
      compression.encoded(b, renderSeatMap(b, tplB), 'gzip', () => undefined),
    ]);
    expect(ga).toBeInstanceOf(Buffer);
    expect(gb).toBeInstanceOf(Buffer);
  });

  it('leaves small bodies as they are', async () => {
    const compression = new SeatMapCompression();
    const snap = snapshotOf(3);
    const tpl = await templateOf(snap);
    const identity = renderSeatMap(snap, tpl);
    expect(identity.length).toBeLessThan(MIN_COMPRESS_BYTES);
    expect(compression.encoded(snap, identity, 'gzip', () => undefined)).toBeUndefined();
  });
});
