import { Counter, Gauge, Histogram, register } from 'prom-client';

/**
 * Get-or-create helpers: metrics live in prom-client's global registry, and jest may build several
 * Nest apps in one process, so registering the same name twice must return the existing metric.
 */
export function counter<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L>) ?? new Counter({ name, help, labelNames });
}

export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
  return (register.getSingleMetric(name) as Gauge<L>) ?? new Gauge({ name, help, labelNames });
}

export function histogram<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[] = [],
  buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
): Histogram<L> {
  return (
    (register.getSingleMetric(name) as Histogram<L>) ?? new Histogram({ name, help, labelNames, buckets })
  );
}
