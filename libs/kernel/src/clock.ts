/** Time enters the system through a clock that infrastructure injects; domain code receives `now` as data. */
export interface Clock {
  now(): Date;
}

/** An adjustable clock for tests. */
export class FixedClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}
