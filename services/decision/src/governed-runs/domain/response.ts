import type { AgentRunResponse, ArtifactRef } from '@runledger/contracts';
import { responseHashSha256 } from '@runledger/governance';
import type { RunError, RunState } from '@runledger/runs';
import { bounded, PROMOTION_TICKET_CODES } from './errors';

/** What a completed agent run records as its payload; `response_hash_sha256` covers exactly this. */
export interface AgentRunPayload {
  agent_name: string;
  output_artifacts: ArtifactRef[];
  result: Record<string, unknown>;
}

/** §2.2: the hash of the payload, normalised (stable key order, volatile timestamps out); run ids are not payload. */
export function payloadHash(payload: AgentRunPayload): string {
  return responseHashSha256(payload);
}

/**
 * Error codes that are a policy's no, not a fault: the sanitiser's refusal is a content prohibition of the lane,
 * a screen that could not read every source refuses rather than promote unscreened, and a ticket that does not
 * approve the promotion is no approval; a parent run of another case is case isolation.
 */
const DENY_CODES = new Set<string>(['POLICY_DENIED', 'PROMOTION.REFUSED', 'PROMOTION.SCREEN_INCOMPLETE', ...PROMOTION_TICKET_CODES, 'CASE.CROSS_CASE_DENIED', 'CASE.NOT_GRANTED', 'REQUEST.UNATTRIBUTED', 'RUN.PARENT_TERMINAL']);

export const IN_PROGRESS: RunError = { error_code: 'RUN.IN_PROGRESS', message: 'The run is still in progress; repeat the request to get its outcome.', retryable: true };

/** §2.2 response of a run, from its folded state. A run without a terminal event is reported as in progress. */
export function responseOf(agentName: string, runId: string, state: Pick<RunState, 'status' | 'output_artifacts' | 'response_hash_sha256' | 'error' | 'child_run_ids' | 'cancel_requested'>): AgentRunResponse {
  const base = { agent_name: agentName, run_id: runId, ...(state.child_run_ids.length ? { child_run_ids: [...state.child_run_ids] } : {}) };
  if (state.status === 'completed') {
    return {
      outcome: 'success', ...base, output_artifacts: state.output_artifacts as unknown as ArtifactRef[],
      ...(state.response_hash_sha256 ? { response_hash_sha256: state.response_hash_sha256 } : {}), error: null,
    };
  }
  const terminal = ['denied', 'failed', 'cancelled'].includes(state.status);
  const error = terminal ? (state.error ?? (state.status === 'cancelled' ? cancelledError(state.cancel_requested?.reason) : { error_code: 'INTERNAL', message: 'The run ended without an error record.', retryable: false })) : IN_PROGRESS;
  // A run denied at start, or one whose privileged action the policy denied, is a deny (§4 POLICY_DENIED).
  const outcome = state.status === 'denied' || DENY_CODES.has(error.error_code) ? 'deny' : 'failure';
  return { outcome, ...base, output_artifacts: [], error: { ...error, message: bounded(error.message) } };
}

/** A cancelled run records no error: it is answered RUN.CANCELLED with the reason its cancel request gave (RunCancelRequested; a run ended cancelled without one, e.g. by its resolver, says only that it was cancelled). */
function cancelledError(reason: string | undefined): RunError {
  return { error_code: 'RUN.CANCELLED', message: reason ? `The run was cancelled: ${reason}` : 'The run was cancelled.', retryable: false };
}

/** The §2.2 answer to a request refused before it became a run: nothing is recorded under this run id. */
export function rejectedResponse(agentName: string, runId: string, message: string, code = 'INVALID_INPUT'): AgentRunResponse {
  return {
    outcome: DENY_CODES.has(code) ? 'deny' : 'failure', agent_name: agentName.slice(0, 64), run_id: runId, output_artifacts: [],
    error: { error_code: code, message: bounded(message), retryable: false },
  };
}
