import { counter, gauge } from '@app/observability';

const cacheBytes = gauge('memory_cache_bytes', 'Estimated bytes held by an in-memory cache', ['cache']);
const cacheEntries = gauge('memory_cache_entries', 'Entries held by an in-memory cache', ['cache']);
const cacheEvictions = counter(
  'memory_cache_evictions_total',
  'Entries an in-memory cache dropped to stay within its budget',
  ['cache'],
);

export interface BoundedLruOptions {
  /** The `cache` label of its metrics. */
  name: string;
  /** Budget of the estimated sizes of all entries. */
  maxBytes: number;
  /** Optional cap on the number of entries, whatever their size. */
  maxEntries?: number;
}

/**
 * A least-recently-used map bounded by an estimated byte budget (and optionally an entry count). Every
 * in-memory cache of the service is one of these, so none can grow without limit (a seat cache that never
 * evicted grew by 18 MB per large event served) and each shows its size on /metrics.
 *
 * The newest entry is always kept, even when it alone exceeds the budget: a budget set below the size
 * of one entry then costs that entry's memory, not a reload per request. So the bytes held never exceed
 * max(maxBytes, largest entry).
 *
 * Metrics are added and subtracted rather than set, so several instances in one process (tests build
 * several apps) sum up instead of overwriting each other; `clear()` gives back what an instance held.
 */
export class BoundedLru<K, V> {
  /** A Map iterates in insertion order: re-inserting on every hit keeps the least recent first. */
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;
  /** The key last inserted or moved to the end, if it is still there (unset: not known). */
  private newest?: K;
  private readonly labels: { cache: string };

  constructor(private readonly options: BoundedLruOptions) {
    this.labels = { cache: options.name };
    // present on /metrics from the start (at 0), not only after the first change
    cacheBytes.inc(this.labels, 0);
    cacheEntries.inc(this.labels, 0);
    cacheEvictions.inc(this.labels, 0);
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.total;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      return undefined;
    }
    // already the most recent (a run of requests on one event): moving it to the end would change nothing
    if (key !== this.newest) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
    }
    return entry.value;
  }

  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    this.entries.set(key, { value, bytes });
    this.newest = key;
    this.total += bytes;
    cacheBytes.inc(this.labels, bytes);
    cacheEntries.inc(this.labels);
    const maxEntries = this.options.maxEntries ?? Infinity;
    while (this.entries.size > 1 && (this.total > this.options.maxBytes || this.entries.size > maxEntries)) {
      const oldest = this.entries.keys().next().value as K;
      this.delete(oldest);
      cacheEvictions.inc(this.labels);
    }
  }

  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      return false;
    }
    this.entries.delete(key);
    if (key === this.newest) {
      this.newest = undefined;
    }
    this.total -= entry.bytes;
    cacheBytes.dec(this.labels, entry.bytes);
    cacheEntries.dec(this.labels);
    return true;
  }

  clear(): void {
    cacheBytes.dec(this.labels, this.total);
    cacheEntries.dec(this.labels, this.entries.size);
    this.entries.clear();
    this.newest = undefined;
    this.total = 0;
  }
}
