import type { GovernanceScope } from '@runledger/contracts';
import type { RunCreatedData } from './run-events';

/** What a run's recorded opening says about who it is: all a choke point needs to know about its caller. */
export type ScopeOwner = Pick<RunCreatedData, 'run_id' | 'root_run_id' | 'agent_name' | 'policy_versions'> & Partial<Pick<RunCreatedData, 'correlation_id' | 'case_id' | 'user_id'>>;

/**
 * The GovernanceScope of every call a run makes into a choke point, built from the run's identity: the run is the
 * parent of the child run the call opens, under the lane the call acts in and the policy versions the run pinned (the
 * choke point checks it against exactly those), with the case and user it works for. One builder, so no carrier can
 * name another run, case or policy than its own by hand.
 */
export function governanceScopeOf(run: ScopeOwner, lane: string, scope: Readonly<Record<string, string>> = {}): GovernanceScope {
  return {
    parent_run_id: run.run_id, root_run_id: run.root_run_id, agent_name: run.agent_name, lane, policy_versions: run.policy_versions,
    ...(run.correlation_id ? { correlation_id: run.correlation_id } : {}),
    ...(run.case_id ? { case_id: run.case_id } : {}),
    ...(run.user_id ? { user_id: run.user_id } : {}),
    ...(Object.keys(scope).length ? { scope: { ...scope } } : {}),
  };
}

/** The scope a choke point's child run calls on with: the caller's, with the child run as the parent of what it opens. */
export function childScopeOf(g: GovernanceScope, childRunId: string): GovernanceScope {
  return { ...g, parent_run_id: childRunId };
}

/** What a child run records beyond who asked: its own inputs, parameters and request hash. */
export interface ChildRunRequest {
  input_artifacts?: RunCreatedData['input_artifacts'];
  parameters: RunCreatedData['parameters'];
  request_hash_sha256: string;
}

/**
 * The RunCreated of a choke point's child run, from the scope its caller sent (verified against the caller's own
 * opening by CallerVerifier): the caller is the parent, and the child runs in its tree, case, user, lane and pins.
 * The inverse of governanceScopeOf, and the one builder of every child run's opening.
 */
export function childRunCreatedOf(kind: Exclude<RunCreatedData['run_kind'], 'agent'>, childRunId: string, g: GovernanceScope, request: ChildRunRequest): RunCreatedData {
  return {
    run_id: childRunId, run_kind: kind, agent_name: g.agent_name, parent_run_id: g.parent_run_id, root_run_id: g.root_run_id,
    correlation_id: g.correlation_id, case_id: g.case_id, user_id: g.user_id, lane: g.lane, contract_version: 'v1', policy_versions: g.policy_versions,
    input_artifacts: request.input_artifacts ?? [], parameters: request.parameters, request_hash_sha256: request.request_hash_sha256,
  };
}
