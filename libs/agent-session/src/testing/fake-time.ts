import type { Clock } from '@runledger/kernel';
import type { Sleeper } from '../ports';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly resolve: () => void;
}

/**
 * Virtual time for tests: a Clock and a Sleeper on one timeline. A sleep never waits for real; once the
 * code under test has nothing else to do (a macrotask later), time jumps to the earliest pending timer.
 * So backoff sleeps finish at once with the clock advanced, a tool that answers wins its timeout race,
 * and a tool that never answers loses it. `sleeps` records every completed wait, in order.
 */
export class FakeTime implements Clock, Sleeper {
  private current: number;
  private seq = 0;
  private timers: Timer[] = [];
  private scheduled = false;
  readonly sleeps: number[] = [];

  constructor(start: Date | number = Date.UTC(2025, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  nowMs(): number {
    return this.current;
  }

  /** Moves the clock without firing timers (e.g. to give a model call a latency). */
  advance(ms: number): void {
    this.current += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer: Timer = {
        at: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          this.sleeps.push(ms);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener(
        'abort',
        () => {
          // An aborted sleep ends without moving time: nobody waited for it.
          this.timers = this.timers.filter((t) => t !== timer);
          resolve();
        },
        { once: true },
      );
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const next = [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) return;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.at);
      next.resolve();
      if (this.timers.length > 0) this.schedule();
    });
  }
}
