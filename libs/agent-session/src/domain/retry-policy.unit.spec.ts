import { backoffMs, decideRetry, NEW_RETRY_TRACK, targetIndexForAttempt } from './retry-policy';
import { parseRetryAfter } from './retry-after';

const rl = (retryAfterMs?: number) => ({ kind: 'error' as const, error: { kind: 'rate_limit' as const, message: '429', ...(retryAfterMs === undefined ? {} : { retryAfterMs }) } });

describe('Provider cycling and retry decisions', () => {
  it('maxRetries: attempt N goes to targets[(N-1) % len]', () => {
    expect([1, 2, 3, 4, 5].map((n) => targetIndexForAttempt(n, 3))).toEqual([0, 1, 2, 0, 1]);
  });

  it('maxRetries: the last allowed attempt is never retried', () => {
    expect(decideRetry({ kind: 'error', error: { kind: 'network', message: 'x' } }, 3, 3, 1, NEW_RETRY_TRACK).type).toBe('exhausted');
    expect(decideRetry({ kind: 'error', error: { kind: 'network', message: 'x' } }, 2, 3, 1, NEW_RETRY_TRACK)).toMatchObject({ type: 'retry', waitMs: 0 });
  });

  it('Fatal errors: auth and quota are fatal even with attempts left', () => {
    for (const kind of ['auth', 'quota'] as const) {
      expect(decideRetry({ kind: 'error', error: { kind, message: kind } }, 1, 5, 2, NEW_RETRY_TRACK).type).toBe('fatal');
    }
  });

  it('Rate limits: backoff 1 s doubling to a 60 s cap; with several targets the wait comes only when the whole cycle was rate-limited', () => {
    expect([1, 2, 3, 6, 7, 8, 20].map(backoffMs)).toEqual([1000, 2000, 4000, 32_000, 60_000, 60_000, 60_000]);
    const first = decideRetry(rl(3000), 1, 5, 2, NEW_RETRY_TRACK);
    expect(first).toMatchObject({ type: 'retry', waitMs: 0 });
    if (first.type !== 'retry') return;
    const second = decideRetry(rl(), 2, 5, 2, first.track);
    expect(second).toMatchObject({ type: 'retry', waitMs: 3000 });
  });

  it('Rate limits: Retry-After as seconds, milliseconds or an HTTP date', () => {
    const now = Date.UTC(2025, 0, 1, 0, 0, 0);
    expect(parseRetryAfter({ retryAfter: '7' }, now)).toBe(7000);
    expect(parseRetryAfter({ retryAfterMs: '1500', retryAfter: '7' }, now)).toBe(1500);
    expect(parseRetryAfter({ retryAfter: 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfter({ retryAfter: 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });
});
