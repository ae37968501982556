import { backoff, retryDelays, retryEvery, retrying } from './retry';

describe('One retry mechanism (issue 7: retries go through one mechanism)', () => {
  const noSleep = async () => undefined;

  it('a retryable failure is tried again with the policy\'s pauses, then its last result is returned, not thrown', async () => {
    const paused: number[] = [];
    const attempts: number[] = [];
    const out = await retrying(retryDelays([1_000, 3_000]), async (n) => (attempts.push(n), { ok: false, retryable: true }), (r) => r.ok || !r.retryable, async (ms) => void paused.push(ms));
    expect({ out, attempts, paused }).toEqual({ out: { result: { ok: false, retryable: true }, attempts: 3 }, attempts: [0, 1, 2], paused: [1_000, 3_000] });
  });

  it('retryability is a field of the result: a non-retryable failure or a success ends at once', async () => {
    const attempts: number[] = [];
    const out = await retrying(retryDelays([1]), async (n) => (attempts.push(n), { ok: false, retryable: false }), (r) => r.ok || !r.retryable, noSleep);
    expect({ attempts, made: out.attempts }).toEqual({ attempts: [0], made: 1 });
  });

  it('policies: fixed pauses, a bounded number of equal pauses, capped doubling', () => {
    expect([0, 1, 2].map(retryDelays([5, 7]))).toEqual([5, 7, undefined]);
    expect([0, 1, 2].map(retryEvery(500, 2))).toEqual([500, 500, undefined]);
    expect([0, 1, 2, 3, 4].map(backoff(250, 2_000))).toEqual([250, 500, 1_000, 2_000, 2_000]);
  });
});
