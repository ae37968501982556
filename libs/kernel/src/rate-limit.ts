export interface RateLimit {
  /** Requests a key may make at once. */
  burst: number;
  /** Tokens a key gets back per minute (0: none, the burst is all there is). */
  perMinute: number;
  /** Keys remembered; the least recently used is forgotten beyond this, so memory stays bounded. */
  maxKeys?: number;
}

/**
 * A token bucket per key, in memory. Pure: time arrives as `nowMs`. Used to turn a flood away before it
 * reaches the log; its counts are not facts to keep, so they are not events.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly limit: RateLimit) {}

  /** Takes one token for `key`; false when the key has none left (the request is turned away). */
  take(key: string, nowMs: number): boolean {
    const held = this.buckets.get(key);
    const refill = held ? ((nowMs - held.at) * this.limit.perMinute) / 60_000 : this.limit.burst;
    const tokens = Math.min(this.limit.burst, (held?.tokens ?? 0) + Math.max(0, refill));
    this.buckets.delete(key); // re-inserted below: Map order is the recency order
    const allowed = tokens >= 1;
    this.buckets.set(key, { tokens: allowed ? tokens - 1 : tokens, at: nowMs });
    if (this.buckets.size > (this.limit.maxKeys ?? 10_000)) this.buckets.delete(this.buckets.keys().next().value as string);
    return allowed;
  }
}
