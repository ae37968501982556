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

/** Never retried: the call site handles the failure itself (records it, or leaves it to a redelivery). */
export const noRetry: RetryPolicy = () => undefined;

/**
 * The named policies of every call a run carrier or a choke point retries, in one place. A bus call is retried only
 * on the transient codes (no responder, timeout, DEPENDENCY.DOWN: Bus.requestIdempotent) and only when it is
 * idempotent (its ids derive from the run), so a retry lands on the same child run, never a second effect.
 */
export const RETRY = {
  /** A request to a choke point (tool-gateway, db-write, artifacts, promotion, export) whose answer got lost or whose service restarts: about 16 s. */
  chokePoint: retryDelays([250, 500, 1_000, 2_000, 3_000, 4_000, 5_000]),
  /** A child run carried by another worker (a sub-agent session): it may outlive that worker's restart, 10 s. */
  childRun: retryEvery(500, 20),
  /** A catalog read at the start of a session (the tool list). */
  catalog: retryEvery(500, 5),
  /** A read or write of the store from inside a tool: as often as the tool's own deadline (its abort signal) allows. */
  withinDeadline: (() => 200) as RetryPolicy,
  /** The classifier, doubling pauses within the caller's budget (its abort signal). */
  classify: backoff(250, 2_000),
  /** A tool call that failed retryably, asked again as a new call by a governed run's workflow step. */
  toolAttempt: retryDelays([1_000, 3_000]),
  /**
   * A read-model row the ledger held and then writes (a store fault, a conflict that outlived the write's own re-reads):
   * about 16 s, inside the ledger's 30 s ack_wait; then the row's batch is never acked, so it is handled again.
   */
  ledgerRow: retryDelays([250, 500, 1_000, 2_000, 4_000, 8_000]),
  none: noRetry,
} as const satisfies Record<string, RetryPolicy>;

/** What `retrying` ends with: the last attempt's result and how many attempts were made (for the caller's message). */
export interface Retried<T> {
  result: T;
  attempts: number;
}

/**
 * Runs `attempt` until `settled` accepts its result or the policy gives up (then the last result is returned:
 * a failure the caller records, not an exception). Retryability is a field of the result, never a guess.
 */
export async function retrying<T>(policy: RetryPolicy, attempt: (n: number) => Promise<T>, settled: (result: T) => boolean, sleep: (ms: number) => Promise<void> = timerSleep): Promise<Retried<T>> {
  for (let n = 0; ; n++) {
    const result = await attempt(n);
    const delay = settled(result) ? undefined : policy(n);
    if (delay === undefined) return { result, attempts: n + 1 };
    await sleep(delay);
  }
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
