import type { Clock } from '@runledger/kernel';
import type { Sleeper } from '../ports';

export const systemClock: Clock = { now: () => new Date() };

/** A real-timer Sleeper; resolves early (and clears the timer) when the signal aborts. */
export const timerSleeper: Sleeper = {
  sleep(ms, signal) {
    return new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    });
  },
};
