import type { AuthzInputs } from '@runledger/governance';
import { AppError } from '@runledger/kernel';
import type { AuthzDecidedData, PolicyVersionsPin, RunError } from './run-events';
import type { RunState } from './run-state';

/** A policy decision (or a denial of the choke point's own, e.g. a claim mismatch). */
export type Decision = { decision: 'allow' } | { decision: 'deny'; code: string; reason: string };

/** The AuthzDecided event every choke point records for a decision at one lane and action. */
export function authzDecidedOf(decision: Decision, at: { lane: string; action: string; policy_versions: PolicyVersionsPin; inputs?: AuthzInputs }): AuthzDecidedData {
  const inputs = at.inputs ? { inputs: at.inputs } : {};
  return decision.decision === 'allow'
    ? { decision: 'allow', lane: at.lane, action: at.action, policy_versions: at.policy_versions, ...inputs }
    : { decision: 'deny', lane: at.lane, action: at.action, code: decision.code, reason: decision.reason, policy_versions: at.policy_versions, ...inputs };
}

/** The reply of a recorded child run that did not complete: denied or failed with its error; still open is a conflict to retry. */
export function unsuccessfulReply(state: RunState, what: string): { status: 'denied' | 'failed'; error?: RunError } {
  if (state.status === 'denied' || state.status === 'failed') return { status: state.status, ...(state.error ? { error: state.error } : {}) };
  throw new AppError('RUN.CONFLICT', `The ${what} is still in progress; retry.`);
}
