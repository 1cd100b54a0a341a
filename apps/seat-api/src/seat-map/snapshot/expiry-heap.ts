/**
 * Held seats by expireAt, soonest first (a binary min-heap over two growable typed arrays): finding the
 * holds that ran out costs what ran out, not a pass over the event. Entries are never removed when a seat
 * changes; the reader of `popDue` checks each against the seat's current expireAt and skips stale ones,
 * and `compactIfMostlyStale` drops them wholesale once they outnumber the live ones.
 */
export class ExpiryHeap {
  private at = new Float64Array(64);
  private pos = new Int32Array(64);
  private n = 0;

  get size(): number {
    return this.n;
  }

  get bytes(): number {
    return this.at.byteLength + this.pos.byteLength;
  }

  push(expireAtMs: number, position: number): void {
    if (this.n === this.at.length) {
      const at = new Float64Array(this.n * 2);
      const pos = new Int32Array(this.n * 2);
      at.set(this.at);
      pos.set(this.pos);
      this.at = at;
      this.pos = pos;
    }
    let i = this.n++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.at[parent] <= expireAtMs) {
        break;
      }
      this.at[i] = this.at[parent];
      this.pos[i] = this.pos[parent];
      i = parent;
    }
    this.at[i] = expireAtMs;
    this.pos[i] = position;
  }

  /** Calls `visit(position, expireAt)` for every entry due at `nowMs` (expireAt <= now), removing them. */
  popDue(nowMs: number, visit: (position: number, expireAtMs: number) => void): void {
    while (this.n > 0 && this.at[0] <= nowMs) {
      const at = this.at[0];
      const pos = this.pos[0];
      this.removeTop();
      visit(pos, at);
    }
  }

  /** Rebuilds from the live entries when stale ones dominate (`isLive` says which are still current). */
  compactIfMostlyStale(live: number, isLive: (position: number, expireAtMs: number) => boolean): void {
    if (this.n < 1024 || this.n < 2 * live) {
      return;
    }
    const at = this.at.slice(0, this.n);
    const pos = this.pos.slice(0, this.n);
    this.n = 0;
    for (let i = 0; i < at.length; i++) {
      if (isLive(pos[i], at[i])) {
        this.push(at[i], pos[i]);
      }
    }
  }

  clear(): void {
    this.n = 0;
  }

  private removeTop(): void {
    const last = --this.n;
    const at = this.at[last];
    const pos = this.pos[last];
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= last) {
        break;
      }
      const child = left + 1 < last && this.at[left + 1] < this.at[left] ? left + 1 : left;
      if (this.at[child] >= at) {
        break;
      }
      this.at[i] = this.at[child];
      this.pos[i] = this.pos[child];
      i = child;
    }
    this.at[i] = at;
    this.pos[i] = pos;
  }
}
