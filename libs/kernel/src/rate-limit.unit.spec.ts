import { RateLimiter } from './rate-limit';

describe('Issue 10 rate limit of rejected requests (token bucket per caller, time as data)', () => {
  it('a caller gets its burst, then is turned away until tokens come back with time', () => {
    const limiter = new RateLimiter({ burst: 3, perMinute: 60 });
    const at0 = [1, 2, 3, 4].map(() => limiter.take('alice', 0));
    expect(at0).toEqual([true, true, true, false]);
    expect(limiter.take('alice', 999)).toBe(false); // less than one token back (1 per second)
    expect(limiter.take('alice', 1_000)).toBe(true);
    expect(limiter.take('alice', 1_000)).toBe(false);
  });

  it('callers are counted apart: one caller\'s flood does not turn another away', () => {
    const limiter = new RateLimiter({ burst: 2, perMinute: 0 });
    expect([limiter.take('mallory', 0), limiter.take('mallory', 0), limiter.take('mallory', 0)]).toEqual([true, true, false]);
    expect(limiter.take('bob', 0)).toBe(true);
  });

  it('perMinute 0: the burst is all there is, however long one waits', () => {
    const limiter = new RateLimiter({ burst: 1, perMinute: 0 });
    expect(limiter.take('k', 0)).toBe(true);
    expect(limiter.take('k', 10 ** 9)).toBe(false);
  });

  it('memory is bounded: past maxKeys the least recently used caller is forgotten (and starts afresh)', () => {
    const limiter = new RateLimiter({ burst: 1, perMinute: 0, maxKeys: 2 });
    limiter.take('a', 0);
    limiter.take('b', 0);
    limiter.take('c', 0); // forgets 'a'
    expect(limiter.take('a', 0)).toBe(true);
    expect(limiter.take('c', 0)).toBe(false);
  });
});
