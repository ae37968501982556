import { LruMap } from './lru-map';

describe('LruMap: the bounded in-process caches (data keys, callers\' run records, open ledger rows)', () => {
  it('keeps at most its limit, forgetting the least recently used first; a read counts as a use', () => {
    const cache = new LruMap<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // now b is the least recently used
    cache.set('c', 3);
    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.size]).toEqual([true, false, true, 2]);
  });

  it('writing a key again refreshes it and does not grow the cache', () => {
    const cache = new LruMap<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3);
    expect([cache.get('a'), cache.has('b'), cache.size]).toEqual([10, false, 2]);
  });
});
