import type { Counter, Histogram, LabelValues } from 'prom-client';

/** One label set's values inside a prom-client metric (its `hashMap`, keyed by the label set's hash). */
interface HistogramValues {
  labels: object;
  sum: number;
  count: number;
  /** per upper bound, not cumulative (prom-client adds them up when it exports) */
  bucketValues: Record<number, number>;
}
interface CounterValue {
  labels: object;
  value: number;
}
interface Internals<V> {
  hashMap: Record<string, V>;
  upperBounds?: number[];
  enableExemplars?: boolean;
}

const sameLabels = (a: object, b: object): boolean => {
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    ka.length === kb.length &&
    ka.every((k) => String((a as Record<string, unknown>)[k]) === String((b as Record<string, unknown>)[k]))
  );
};

/**
 * The values prom-client keeps for `labels`, found after the library itself created them (so its own
 * hashing and validation decide where they live), with their key, to check on each call that they are
 * still the ones exported (reset() replaces the map, zero() and remove() the entry).
 */
function locate<V extends { labels: object }>(map: Record<string, V>, labels: object): string | undefined {
  return Object.keys(map).find((k) => sameLabels(map[k].labels, labels));
}

/**
 * `histogram.observe(labels, value)` for one fixed label set. prom-client's own observe, and its
 * `labels(...)` children alike, convert, validate and hash the label set on every call (on the lock's hot
 * path, every acquisition). Here the
 * first call, and any call after the metric was reset or its values replaced, goes through prom-client;
 * the others add to the values prom-client created for the label set, exactly as its observe does (sum,
 * count, the first bucket whose upper bound is >= the value; none above the last bound: +Inf is the count).
 */
export function boundObserve<L extends string>(
  histogram: Histogram<L>,
  labels: LabelValues<L> = {},
): (value: number) => void {
  const h = histogram as unknown as Internals<HistogramValues>;
  let map: Record<string, HistogramValues> | undefined;
  let key: string | undefined;
  let values: HistogramValues | undefined;
  return (value: number) => {
    if (values === undefined || h.hashMap !== map || map[key!] !== values || !Number.isFinite(value)) {
      histogram.observe(labels, value);
      if (h.enableExemplars) {
        return; // observe differs then: always prom-client's
      }
      map = h.hashMap;
      key = locate(map, labels);
      values = key === undefined ? undefined : map[key];
      return;
    }
    values.sum += value;
    values.count += 1;
    const bounds = h.upperBounds!;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        values.bucketValues[bounds[i]] += 1;
        return;
      }
    }
  };
}

/** `counter.inc(labels)` (by 1) for one fixed label set: see boundObserve. */
export function boundInc<L extends string>(counter: Counter<L>, labels: LabelValues<L> = {}): () => void {
  const c = counter as unknown as Internals<CounterValue>;
  let map: Record<string, CounterValue> | undefined;
  let key: string | undefined;
  let entry: CounterValue | undefined;
  return () => {
    if (entry === undefined || c.hashMap !== map || map[key!] !== entry) {
      counter.inc(labels);
      if (c.enableExemplars) {
        return;
      }
      map = c.hashMap;
      key = locate(map, labels);
      entry = key === undefined ? undefined : map[key];
      return;
    }
    entry.value += 1;
  };
}
