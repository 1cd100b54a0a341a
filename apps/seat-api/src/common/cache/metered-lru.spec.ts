import { register } from 'prom-client';
import { meteredLru } from './metered-lru';

async function metric(name: string, cache: string): Promise<number> {
  const m = await register.getSingleMetric(name)!.get();
  return m.values.find((v) => v.labels.cache === cache)?.value ?? 0;
}

describe('meteredLru', () => {
  it('evicts the least recently used entries to stay within its byte budget, and shows it on /metrics', async () => {
    const lru = meteredLru<string, string>({ name: 'spec_bytes', maxBytes: 100 });
    expect(await metric('memory_cache_evictions_total', 'spec_bytes')).toBe(0);
    lru.set('a', 'A', { size: 40 });
    lru.set('b', 'B', { size: 40 });
    expect(lru.get('a')).toBe('A'); // a is now the most recent: b goes first
    lru.set('c', 'C', { size: 40 });
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c')]).toEqual(['A', 'C']);
    expect(await metric('memory_cache_bytes', 'spec_bytes')).toBe(80);
    expect(await metric('memory_cache_entries', 'spec_bytes')).toBe(2);
    expect(await metric('memory_cache_evictions_total', 'spec_bytes')).toBe(1);
  });

  it('honours an entry cap whatever the sizes', async () => {
    const lru = meteredLru<number, number>({ name: 'spec_entries', maxBytes: 1e9, maxEntries: 3 });
    for (let i = 0; i < 10; i++) {
      lru.set(i, i, { size: 1 });
    }
    expect([...lru.keys()].sort()).toEqual([7, 8, 9]);
    expect(await metric('memory_cache_entries', 'spec_entries')).toBe(3);
    expect(await metric('memory_cache_evictions_total', 'spec_entries')).toBe(7);
  });

  it('replaces an entry without counting it twice; delete and clear give back its bytes', async () => {
    const lru = meteredLru<string, string>({ name: 'spec_clear', maxBytes: 1000 });
    lru.set('a', 'A', { size: 100 });
    lru.set('a', 'A2', { size: 200 });
    lru.set('b', 'B', { size: 50 });
    expect(await metric('memory_cache_bytes', 'spec_clear')).toBe(250);
    lru.delete('b');
    expect(await metric('memory_cache_bytes', 'spec_clear')).toBe(200);
    lru.clear();
    expect(await metric('memory_cache_bytes', 'spec_clear')).toBe(0);
    expect(await metric('memory_cache_entries', 'spec_clear')).toBe(0);
    // neither a replacement, a delete nor a clear is an eviction
    expect(await metric('memory_cache_evictions_total', 'spec_clear')).toBe(0);
  });

  it('measures an entry again when the same value is set again with a new size (an entry that grew)', async () => {
    const lru = meteredLru<string, { body?: string }>({ name: 'spec_grown', maxBytes: 1000 });
    const snapshot: { body?: string } = {};
    lru.set('a', snapshot, { size: 100 });
    lru.set('b', {}, { size: 100 });
    snapshot.body = 'rendered';
    lru.set('a', snapshot, { size: 300 });
    expect(await metric('memory_cache_bytes', 'spec_grown')).toBe(400);
    // and the budget bounds what it grew to: the least recently used entry makes room
    lru.set('a', snapshot, { size: 950 });
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(snapshot);
    expect(await metric('memory_cache_bytes', 'spec_grown')).toBe(950);
    expect(await metric('memory_cache_evictions_total', 'spec_grown')).toBe(1);
  });

  it('keeps no entry larger than the whole budget, and drops what the key held', async () => {
    const lru = meteredLru<string, string>({ name: 'spec_oversize', maxBytes: 100 });
    lru.set('a', 'A', { size: 50 });
    lru.set('big', 'small', { size: 10 });
    lru.set('big', 'BIG', { size: 500 });
    expect(lru.get('big')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(await metric('memory_cache_bytes', 'spec_oversize')).toBe(50);
  });

  it('sums the caches of one name, as several apps in one process have', async () => {
    const one = meteredLru<string, string>({ name: 'spec_sum', maxBytes: 100 });
    const two = meteredLru<string, string>({ name: 'spec_sum', maxBytes: 100 });
    one.set('a', 'A', { size: 30 });
    two.set('a', 'A', { size: 20 });
    expect(await metric('memory_cache_bytes', 'spec_sum')).toBe(50);
    expect(await metric('memory_cache_entries', 'spec_sum')).toBe(2);
  });
});
