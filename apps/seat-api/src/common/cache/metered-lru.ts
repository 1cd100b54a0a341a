import { LRUCache } from 'lru-cache';
import { Gauge, register } from 'prom-client';
import { counter } from '@app/observability';

/** What the gauges read of a cache: lru-cache's own counts. */
type Counted = Pick<LRUCache<string, object>, 'size' | 'calculatedSize'>;
/** Every cache meteredLru made, by its `cache` label; weakly, so a cache dropped with its app is forgotten. */
const live = new Map<string, Set<WeakRef<Counted>>>();

/**
 * A gauge read from the live caches when /metrics is scraped: what lru-cache itself counts (its entries,
 * its calculated size), summed per label, so several caches of one name in a process (tests build several
 * apps) add up, and nothing is counted on the request path.
 */
function liveGauge(name: string, help: string, read: (cache: Counted) => number): void {
  if (register.getSingleMetric(name)) {
    return;
  }
  new Gauge({
    name,
    help,
    labelNames: ['cache'],
    collect() {
      this.reset();
      for (const [cache, refs] of live) {
        let sum = 0;
        for (const ref of refs) {
          const lru = ref.deref();
          if (lru) {
            sum += read(lru);
          } else {
            refs.delete(ref);
          }
        }
        this.set({ cache }, sum);
      }
    },
  });
}

liveGauge('memory_cache_bytes', 'Estimated bytes held by an in-memory cache', (c) => c.calculatedSize);
liveGauge('memory_cache_entries', 'Entries held by an in-memory cache', (c) => c.size);
const cacheEvictions = counter(
  'memory_cache_evictions_total',
  'Entries an in-memory cache dropped to stay within its budget',
  ['cache'],
);

export interface MeteredLruOptions {
  /** The `cache` label of its metrics. */
  name: string;
  /** Budget of the estimated sizes of all entries: each `set` gives its entry's size (`{ size }`). */
  maxBytes: number;
  /** Optional cap on the number of entries, whatever their size. */
  maxEntries?: number;
}

/**
 * lru-cache takes a `set` of the value a key already holds for a refresh and keeps the size it was first
 * set with; a cached object that grew (a seat-map snapshot with a newly rendered body) is set again to be
 * measured again, so it is taken out first: its new size is then counted on /metrics and bounded by the
 * budget (a delete is no eviction).
 */
class RemeasuringLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>> extends LRUCache<K, V> {
  override set(key: K, value: V | undefined, options?: LRUCache.SetOptions<K, V, unknown>): this {
    if (options?.size !== undefined && value !== undefined && this.peek(key) === value) {
      this.delete(key);
    }
    return super.set(key, value, options);
  }
}

/**
 * A least-recently-used cache (lru-cache) bounded by an estimated byte budget and optionally an entry
 * count, shown on /metrics: every in-memory cache of the service is one, so none can grow without limit
 * (a seat cache that never evicted grew by 18 MB per large event served) and each shows its size.
 *
 * Each `set` gives the entry's size, also the same value set again after it grew. lru-cache keeps no
 * entry larger than the whole budget (a `set` of one drops the key): the budgets' floors (config) sit
 * well above one event's seats or seat map.
 */
export function meteredLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  options: MeteredLruOptions,
): LRUCache<K, V> {
  const labels = { cache: options.name };
  const lru = new RemeasuringLru<K, V>({
    maxSize: options.maxBytes,
    max: options.maxEntries,
    dispose: (_value, _key, reason) => {
      if (reason === 'evict') {
        cacheEvictions.inc(labels);
      }
    },
  });
  let refs = live.get(options.name);
  if (!refs) {
    live.set(options.name, (refs = new Set()));
  }
  refs.add(new WeakRef<Counted>(lru));
  // present on /metrics from the start (at 0), not only after the first eviction
  cacheEvictions.inc(labels, 0);
  return lru;
}
