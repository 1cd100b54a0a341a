/** Entries kept at most, and seat positions across them at most. */
const MAX_ENTRIES = 2048;
const MAX_POSITIONS = 64 * 1024;

/**
 * The seat positions of the change-log entries a snapshot applied most recently, by version: a stream
 * that resumes (Last-Event-ID) from a version still covered here is answered from memory, so a wave of
 * reconnecting clients costs Redis nothing. Bounded in entries and positions; the oldest go first.
 */
export class RecentChanges {
  private readonly versions: number[] = [];
  private readonly seats: Int32Array[] = [];
  private positions = 0;
  /** Versions after this one are all here. */
  private from = 0;

  get bytes(): number {
    return this.positions * 4 + this.versions.length * 64;
  }

  /** Forgets everything: resumes from before `version` need the change log again. */
  reset(version: number): void {
    this.versions.length = 0;
    this.seats.length = 0;
    this.positions = 0;
    this.from = version;
  }

  add(version: number, positions: Int32Array): void {
    this.versions.push(version);
    this.seats.push(positions);
    this.positions += positions.length;
    while (this.versions.length > MAX_ENTRIES || this.positions > MAX_POSITIONS) {
      this.from = this.versions.shift()!;
      this.positions -= this.seats.shift()!.length;
    }
  }

  /** The positions changed after `version`, or null when entries after it are no longer all here. */
  since(version: number): Set<number> | null {
    if (version < this.from) {
      return null;
    }
    const out = new Set<number>();
    for (let i = this.versions.length - 1; i >= 0 && this.versions[i] > version; i--) {
      for (const p of this.seats[i]) {
        out.add(p);
      }
    }
    return out;
  }

  /** The oldest version a resume can start from. */
  get coversFrom(): number {
    return this.from;
  }
}
