import { contextLimitOf, type ResolvedTarget } from './session-config';

/** §2 Counters and Inputs. Plain data; every change returns a new value. */
export interface ContextCounters {
  /** Committed by the last successful response: input + output + cache-read tokens as reported. */
  readonly currentCtxTokens: number;
  /** Estimated cost of everything appended since the last request. */
  readonly pendingCtxTokens: number;
  /** Tool outputs of the current turn not yet flushed into pending. */
  readonly newCtxTokens: number;
  /** Tool schema of the upcoming request. */
  readonly schemaCtxTokens: number;
}

export const EMPTY_COUNTERS: ContextCounters = { currentCtxTokens: 0, pendingCtxTokens: 0, newCtxTokens: 0, schemaCtxTokens: 0 };

export type GuardSite = 'tool_preflight' | 'turn_preflight';

export interface BlockedTarget {
  readonly provider: string;
  readonly model: string;
  readonly limit: number;
}

export interface GuardVerdict {
  readonly site: GuardSite;
  readonly fits: boolean;
  readonly projected: number;
  /** The smallest limit among the targets: the one the next request may be held to. */
  readonly limit: number;
  /** `limit - projected` when positive (§2: logged for operators). */
  readonly remaining?: number;
  readonly blocked: readonly BlockedTarget[];
}

/** Every guard evaluation first moves `new` into `pending`, so nothing is lost across retries (§2). */
export function flushNew(c: ContextCounters): ContextCounters {
  return { ...c, pendingCtxTokens: c.pendingCtxTokens + c.newCtxTokens, newCtxTokens: 0 };
}

export function addNew(c: ContextCounters, tokens: number): ContextCounters {
  return { ...c, newCtxTokens: c.newCtxTokens + tokens };
}

export function addPending(c: ContextCounters, tokens: number): ContextCounters {
  return { ...c, pendingCtxTokens: c.pendingCtxTokens + tokens };
}

export function withSchema(c: ContextCounters, schemaTokens: number): ContextCounters {
  return { ...c, schemaCtxTokens: schemaTokens };
}

/** After a successful response everything pending is part of the provider-reported context. */
export function commitResponse(c: ContextCounters, reportedCtxTokens: number): ContextCounters {
  return { ...c, currentCtxTokens: reportedCtxTokens, pendingCtxTokens: 0 };
}

/** `projected = current + pending + new + schema` (+ the candidate being checked). */
export function projectTokens(c: ContextCounters, extraTokens = 0): number {
  return c.currentCtxTokens + c.pendingCtxTokens + c.newCtxTokens + c.schemaCtxTokens + extraTokens;
}

/**
 * Evaluates the guard against every target (`limit = contextWindow - buffer - maxOutputTokens`); the
 * projection does not fit when any target would overflow, because the next attempt may go to any of them.
 */
export function evaluateGuard(
  site: GuardSite,
  c: ContextCounters,
  targets: readonly ResolvedTarget[],
  bufferTokens: number,
  extraTokens = 0,
): GuardVerdict {
  const projected = projectTokens(c, extraTokens);
  const limits = targets.map((t) => ({ provider: t.provider, model: t.model, limit: contextLimitOf(t, bufferTokens) }));
  const limit = Math.min(...limits.map((l) => l.limit));
  const blocked = limits.filter((l) => projected > l.limit);
  return {
    site,
    fits: blocked.length === 0,
    projected,
    limit,
    ...(limit - projected > 0 ? { remaining: limit - projected } : {}),
    blocked,
  };
}
