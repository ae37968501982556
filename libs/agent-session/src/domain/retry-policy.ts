import type { ModelError } from './types';
import { EMPTY_RESPONSE_NOTICE, invalidResponseNotice } from './notices';

/** §3 Rate limits: exponential backoff fallback, 1 s doubling up to 60 s. */
export const BACKOFF_INITIAL_MS = 1000;
export const BACKOFF_MAX_MS = 60_000;

/** §3 Provider Cycling: attempt N (1-based) goes to `targets[(N-1) % targets.length]`. */
export function targetIndexForAttempt(attempt: number, targetCount: number): number {
  return (attempt - 1) % targetCount;
}

export function backoffMs(rateLimitHits: number): number {
  return Math.min(BACKOFF_INITIAL_MS * 2 ** Math.max(0, rateLimitHits - 1), BACKOFF_MAX_MS);
}

/** Why an attempt produced nothing usable. */
export type AttemptFailure =
  | { readonly kind: 'error'; readonly error: ModelError }
  | { readonly kind: 'empty_response' }
  | { readonly kind: 'unusable_response'; readonly detail: string };

/** Retry bookkeeping of one turn; plain data so the decision stays a pure function. */
export interface RetryTrack {
  readonly rateLimitHits: number;
  /** Waits asked for by the consecutive rate-limited attempts of the current cycle. */
  readonly rateLimitStreak: readonly number[];
}

export const NEW_RETRY_TRACK: RetryTrack = { rateLimitHits: 0, rateLimitStreak: [] };

/** The loop's decision after a failed attempt, as data. */
export type RetryDecision =
  | { readonly type: 'fatal'; readonly error: ModelError }
  | { readonly type: 'retry'; readonly waitMs: number; readonly notice?: string; readonly track: RetryTrack }
  | { readonly type: 'exhausted'; readonly track: RetryTrack };

/**
 * §1 maxRetries / §3 Error Handling. Auth and quota end the session. A rate limit moves on to the next
 * target at once; only when every target was rate-limited in the same cycle does the session wait, for
 * the longest delay that cycle asked for (Retry-After when given, else the backoff), so no target is
 * hit again before it said it would be ready. Network, timeout and model errors move on without delay.
 * Empty or unusable answers retry with an ephemeral notice. Every attempt counts toward `maxRetries`.
 */
export function decideRetry(failure: AttemptFailure, attempt: number, maxRetries: number, targetCount: number, track: RetryTrack): RetryDecision {
  if (failure.kind === 'error' && (failure.error.kind === 'auth' || failure.error.kind === 'quota')) {
    return { type: 'fatal', error: failure.error };
  }
  let next: RetryTrack = { ...track, rateLimitStreak: [] };
  let waitMs = 0;
  if (failure.kind === 'error' && failure.error.kind === 'rate_limit') {
    const hits = track.rateLimitHits + 1;
    const wait = failure.error.retryAfterMs ?? backoffMs(hits);
    const streak = [...track.rateLimitStreak, wait];
    if (streak.length >= targetCount) {
      waitMs = Math.max(...streak);
      next = { rateLimitHits: hits, rateLimitStreak: [] };
    } else {
      next = { rateLimitHits: hits, rateLimitStreak: streak };
    }
  }
  if (attempt >= maxRetries) return { type: 'exhausted', track: next };
  const notice =
    failure.kind === 'empty_response'
      ? EMPTY_RESPONSE_NOTICE
      : failure.kind === 'unusable_response'
        ? invalidResponseNotice(failure.detail)
        : failure.error.kind === 'invalid_response'
          ? invalidResponseNotice(failure.error.message)
          : undefined;
  return { type: 'retry', waitMs, track: next, ...(notice === undefined ? {} : { notice }) };
}
