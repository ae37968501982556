/**
 * The one retry mechanism of run carriers: a policy says how long to pause before retry number `attempt`
 * (0-based), or undefined to give up. It is the shape the bus's requestIdempotent takes, so a request retried
 * on the wire and a tool call retried as a new call follow the same policies.
 */
export type RetryPolicy = (attempt: number) => number | undefined;

/** Fixed pauses, one per retry; then give up. */
export const retryDelays = (delaysMs: readonly number[]): RetryPolicy => (attempt) => delaysMs[attempt];

/** The same pause before each of at most `times` retries. */
export const retryEvery = (ms: number, times: number): RetryPolicy => (attempt) => (attempt < times ? ms : undefined);

/** Doubling pauses from `baseMs`, capped at `maxMs`, for as long as the caller's budget (its abort signal) allows. */
export const backoff = (baseMs: number, maxMs: number): RetryPolicy => (attempt) => Math.min(maxMs, baseMs * 2 ** attempt);

/**
 * Runs `attempt` until `settled` accepts its result or the policy gives up (then the last result is returned:
 * a failure the caller records, not an exception). Retryability is a field of the result, never a guess.
 */
export async function retrying<T>(policy: RetryPolicy, attempt: (n: number) => Promise<T>, settled: (result: T) => boolean, sleep: (ms: number) => Promise<void> = timerSleep): Promise<T> {
  for (let n = 0; ; n++) {
    const result = await attempt(n);
    const delay = settled(result) ? undefined : policy(n);
    if (delay === undefined) return result;
    await sleep(delay);
  }
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
