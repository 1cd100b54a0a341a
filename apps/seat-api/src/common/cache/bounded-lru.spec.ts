import { register } from 'prom-client';
import { BoundedLru } from './bounded-lru';

async function metric(name: string, cache: string): Promise<number> {
  const m = await register.getSingleMetric(name)!.get();
  return m.values.find((v) => v.labels.cache === cache)?.value ?? 0;
}

describe('BoundedLru', () => {
  it('evicts the least recently used entries to stay within its byte budget, and counts them', async () => {
    const lru = new BoundedLru<string, string>({ name: 'spec_bytes', maxBytes: 100 });
    lru.set('a', 'A', 40);
    lru.set('b', 'B', 40);
    expect(lru.get('a')).toBe('A'); // a is now the most recent: b goes first
    lru.set('c', 'C', 40);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    expect(lru.bytes).toBe(80);
    expect(await metric('memory_cache_bytes', 'spec_bytes')).toBe(80);
    expect(await metric('memory_cache_entries', 'spec_bytes')).toBe(2);
    expect(await metric('memory_cache_evictions_total', 'spec_bytes')).toBe(1);
  });

  it('keeps the exact order through repeated reads of the newest entry and deletes', () => {
    const lru = new BoundedLru<string, string>({ name: 'spec_order', maxBytes: 1e9, maxEntries: 3 });
    lru.set('a', 'A', 1);
    lru.set('b', 'B', 1);
    lru.set('c', 'C', 1);
    expect(lru.get('c')).toBe('C'); // the newest already: stays last
    expect(lru.get('a')).toBe('A'); // order b, c, a
    expect(lru.get('a')).toBe('A');
    lru.delete('a'); // order b, c
    expect(lru.get('b')).toBe('B'); // order c, b
    lru.set('d', 'D', 1); // order c, b, d
    lru.set('e', 'E', 1); // c goes first
    expect(lru.get('c')).toBeUndefined();
    expect(['b', 'd', 'e'].map((k) => lru.get(k))).toEqual(['B', 'D', 'E']);
    lru.set('f', 'F', 1); // b goes: d and e were read after it
    expect(lru.get('b')).toBeUndefined();
  });

  it('keeps the newest entry alone when it exceeds the whole budget', () => {
    const lru = new BoundedLru<string, string>({ name: 'spec_oversize', maxBytes: 100 });
    lru.set('a', 'A', 50);
    lru.set('big', 'BIG', 500);
    expect(lru.size).toBe(1);
    expect(lru.get('big')).toBe('BIG');
    lru.set('b', 'B', 10);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.bytes).toBe(10);
  });

  it('honours an entry cap whatever the sizes', () => {
    const lru = new BoundedLru<number, number>({ name: 'spec_entries', maxBytes: 1e9, maxEntries: 3 });
    for (let i = 0; i < 10; i++) {
      lru.set(i, i, 1);
    }
    expect(lru.size).toBe(3);
    expect([7, 8, 9].map((k) => lru.get(k))).toEqual([7, 8, 9]);
  });

  it('replaces an entry without counting it twice, and clear() gives back its bytes', async () => {
    const lru = new BoundedLru<string, string>({ name: 'spec_clear', maxBytes: 1000 });
    lru.set('a', 'A', 100);
    lru.set('a', 'A2', 200);
    expect(lru.bytes).toBe(200);
    expect(await metric('memory_cache_bytes', 'spec_clear')).toBe(200);
    lru.clear();
    expect(lru.size).toBe(0);
    expect(await metric('memory_cache_bytes', 'spec_clear')).toBe(0);
    expect(await metric('memory_cache_entries', 'spec_clear')).toBe(0);
  });

  it('evicts as a plain list in recency order would, through any mix of reads, writes, deletes and clears', () => {
    const lru = new BoundedLru<number, number>({ name: 'spec_model', maxBytes: 40, maxEntries: 6 });
    let model: { key: number; bytes: number }[] = []; // least recent first
    const evict = () => {
      const total = () => model.reduce((n, e) => n + e.bytes, 0);
      while (model.length > 1 && (total() > 40 || model.length > 6)) {
        model.shift();
      }
    };
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < 5000; i++) {
      const key = random(12);
      const at = model.findIndex((e) => e.key === key);
      const op = random(20);
      if (op < 8) {
        expect(lru.get(key)).toBe(at >= 0 ? key : undefined);
        if (at >= 0) {
          model.push(...model.splice(at, 1));
        }
      } else if (op < 17) {
        const bytes = 1 + random(12);
        lru.set(key, key, bytes);
        model = model.filter((e) => e.key !== key);
        model.push({ key, bytes });
        evict();
      } else if (op < 19) {
        expect(lru.delete(key)).toBe(at >= 0);
        model = model.filter((e) => e.key !== key);
      } else {
        lru.clear();
        model = [];
      }
      expect(lru.size).toBe(model.length);
      expect(lru.bytes).toBe(model.reduce((n, e) => n + e.bytes, 0));
    }
  });
});
