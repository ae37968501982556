import { AppError } from '@runledger/kernel';
import type { RunError } from '@runledger/runs';

/**
 * The promotion service's refusals of a promotion's ticket (§4.5 "approval + scope"), each recorded on the promotion
 * run (AuthzDecided deny, RunDenied): a GOVERNANCE_AGENT run ends with the same code, never a bare POLICY_DENIED.
 */
export const PROMOTION_TICKET_CODES = ['PROMOTION.TICKET_MISSING', 'PROMOTION.TICKET_NOT_APPROVED', 'PROMOTION.TICKET_SCOPE', 'PROMOTION.TICKET_EXPIRED', 'PROMOTION.TICKET_USED'] as const;
export type PromotionTicketCode = (typeof PROMOTION_TICKET_CODES)[number];

/**
 * Stable error codes of a governed agent run (§2.2 `error.error_code`, §4 failure modes).
 * POLICY_DENIED and the promotion refusals make the outcome `deny` (see response.ts DENY_CODES); every other code is a `failure`.
 */
export type AgentErrorCode =
  | 'INVALID_INPUT'
  | 'POLICY_DENIED'
  | 'DEPENDENCY_DOWN'
  | 'DELEGATION.CIRCULAR'
  | 'DELEGATION.MAX_DEPTH'
  | 'DELEGATION.CHILD_CONFLICT'
  | 'CHILD_RUN_FAILED'
  | 'PROMOTION.REFUSED'
  | 'PROMOTION.SCREEN_INCOMPLETE'
  | PromotionTicketCode
  | 'ARTIFACT.HASH_MISMATCH'
  | 'EXPORT.FAILED'
  | 'INTERNAL';

export const MAX_ERROR_MESSAGE = 500;

/** A step failing for a reason the caller should see; anything else thrown is reported as INTERNAL. */
export class AgentStepError extends Error {
  constructor(readonly code: AgentErrorCode | string, message: string, readonly retryable = false) {
    super(message);
    this.name = 'AgentStepError';
  }
}

export const invalidInput = (message: string) => new AgentStepError('INVALID_INPUT', message);
export const policyDenied = (message: string) => new AgentStepError('POLICY_DENIED', message);

export function bounded(message: string): string {
  return message.length > MAX_ERROR_MESSAGE ? `${message.slice(0, MAX_ERROR_MESSAGE - 3)}...` : message;
}

/**
 * The §2.2 error of a failed step. Infrastructure failures that outlasted the effect adapter's retries
 * (no responder, timeouts) are DEPENDENCY_DOWN and retryable; unknown errors never leak their text.
 */
export function runErrorOf(cause: unknown): RunError {
  if (cause instanceof AgentStepError) return { error_code: cause.code, message: bounded(cause.message), retryable: cause.retryable };
  if (cause instanceof AppError && (cause.code === 'DEPENDENCY.DOWN' || cause.code === 'RUN.TIMEOUT')) {
    return { error_code: 'DEPENDENCY_DOWN', message: bounded(cause.message), retryable: true };
  }
  if (cause instanceof AppError && (cause.code === 'LANE.DENIED' || cause.code === 'CASE.CROSS_CASE_DENIED')) {
    return { error_code: 'POLICY_DENIED', message: bounded(cause.message), retryable: false };
  }
  // A choke point refused what the run asked of it for the request itself (an id or value from the run's inputs it
  // cannot take, in its caller-safe words): asking again gets the same refusal (probe finding: it was INTERNAL, retryable).
  if (cause instanceof AppError && cause.code === 'REQUEST.INVALID') return runErrorOf(invalidInput(cause.message));
  return { error_code: 'INTERNAL', message: 'The agent failed unexpectedly.', retryable: true };
}
