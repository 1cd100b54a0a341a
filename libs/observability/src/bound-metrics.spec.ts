import { Counter, Histogram, Registry } from 'prom-client';
import { boundInc, boundObserve } from './bound-metrics';

/** The exposition of one metric with its name replaced, to compare two metrics line by line. */
async function text(registry: Registry, name: string): Promise<string> {
  return (await registry.getSingleMetricAsString(name)).replaceAll(name, 'm');
}

describe('bound metrics', () => {
  const buckets = [0.001, 0.01, 0.1, 1];
  const values = [0, 0.0005, 0.001, 0.002, 0.01, 0.5, 1, 3, 1e9];

  it('boundObserve records what observe records, through reset() and zero()', async () => {
    const registry = new Registry();
    const registers = [registry];
    const labelNames = ['route', 'status'] as const;
    const plain = new Histogram({ name: 'plain', help: 'h', labelNames, buckets, registers });
    const bound = new Histogram({ name: 'bound', help: 'h', labelNames, buckets, registers });
    const labels = { route: '/a', status: '201' };
    const other = { status: '409', route: '/a' };
    const observeBound = boundObserve(bound, labels);
    const observeOther = boundObserve(bound, other);
    const both = (v: number) => {
      plain.observe(labels, v);
      observeBound(v);
      plain.observe(other, v * 2);
      observeOther(v * 2);
    };
    values.forEach(both);
    expect(await text(registry, 'bound')).toBe(await text(registry, 'plain'));
    plain.reset();
    bound.reset();
    values.forEach(both);
    expect(await text(registry, 'bound')).toBe(await text(registry, 'plain'));
    plain.zero(labels);
    bound.zero(labels);
    values.slice(3).forEach(both);
    expect(await text(registry, 'bound')).toBe(await text(registry, 'plain'));
    expect(() => observeBound(NaN)).toThrow(TypeError);
  });

  it('boundObserve on an unlabelled histogram, and boundInc, count as prom-client does', async () => {
    const registry = new Registry();
    const registers = [registry];
    const plain = new Histogram({ name: 'plain', help: 'h', buckets, registers });
    const bound = new Histogram({ name: 'bound', help: 'h', buckets, registers });
    const observe = boundObserve(bound);
    for (const v of values) {
      plain.observe(v);
      observe(v);
    }
    expect(await text(registry, 'bound')).toBe(await text(registry, 'plain'));

    const plainCount = new Counter({ name: 'plain_total', help: 'c', labelNames: ['result'], registers });
    const boundCount = new Counter({ name: 'bound_total', help: 'c', labelNames: ['result'], registers });
    const inc = boundInc(boundCount, { result: 'acquired' });
    for (let i = 0; i < 5; i++) {
      plainCount.inc({ result: 'acquired' });
      inc();
    }
    plainCount.reset();
    boundCount.reset();
    for (let i = 0; i < 3; i++) {
      plainCount.inc({ result: 'acquired' });
      inc();
    }
    expect(await text(registry, 'bound_total')).toBe(await text(registry, 'plain_total'));
    expect(await text(registry, 'bound_total')).toContain('m{result="acquired"} 3');
  });
});
