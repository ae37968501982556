import type { ArtifactRef, PolicyVersions } from '@runledger/governance';
import { requestHashSha256 } from '@runledger/governance';
import { deterministicUuid } from '@runledger/kernel';
import { childRunId, type RunCreatedData } from '@runledger/runs';
import type { ForkedFrom } from './fork';

export interface TaxonomyVersions {
  coa?: string;
  tags?: string;
  entities?: string;
}

/**
 * Everything one governed agent run is about, fixed when it is requested: the §2.1 request with its pins
 * resolved (policy versions, ids). It is the inbox command's payload and, as RunCreated, the run's first fact.
 */
export interface AgentRunSpec {
  run_id: string;
  agent_name: string;
  case_id: string;
  parent_run_id?: string;
  root_run_id: string;
  correlation_id: string;
  policy_versions: PolicyVersions;
  taxonomy_versions?: TaxonomyVersions;
  input_artifacts: ArtifactRef[];
  parameters: Record<string, unknown>;
  request_hash_sha256: string;
  /** The caller identity that asked on its runs.start door (issue 26); absent for child runs a parent starts. */
  requested_by?: string;
  /** A fork (rl.runs.fork, issue 25): the source run and checkpoint whose step outputs it restores by reference. */
  forked_from?: ForkedFrom;
}

/** RunCreated of an agent run; taxonomy versions ride along so a resumed run maps against the same taxonomy. */
export type AgentRunCreatedData = RunCreatedData & { taxonomy_versions?: TaxonomyVersions };

/** The request fields the hash reads; see requestHashSha256 for what is in and out. */
export type HashableRequest = Pick<AgentRunSpec, 'agent_name' | 'case_id' | 'policy_versions' | 'taxonomy_versions' | 'input_artifacts' | 'parameters'>;

export function hashRequest(request: HashableRequest): string {
  return requestHashSha256(request);
}

/**
 * A run id from what the request is (its hash), for which case and under which parent: a retried request
 * lands on the same run and gets its recorded outcome. The parent takes part because the hash leaves it out
 * (the same work under two orchestrator runs is two runs).
 */
export function deriveRunId(caseId: string, parentRunId: string | undefined, requestHash: string, requestedBy?: string): string {
  // The caller takes part too: the same request from two callers is two runs, each read only by its own caller.
  return deterministicUuid('agent-run', caseId, parentRunId ?? '', requestHash, ...(requestedBy ? [requestedBy] : []));
}

export function runCreatedOf(spec: AgentRunSpec): AgentRunCreatedData {
  return {
    run_id: spec.run_id,
    run_kind: 'agent',
    agent_name: spec.agent_name,
    ...(spec.parent_run_id ? { parent_run_id: spec.parent_run_id } : {}),
    root_run_id: spec.root_run_id,
    correlation_id: spec.correlation_id,
    case_id: spec.case_id,
    contract_version: 'v1',
    policy_versions: { lanes: spec.policy_versions.lanes, roles: spec.policy_versions.roles },
    ...(spec.taxonomy_versions ? { taxonomy_versions: spec.taxonomy_versions } : {}),
    input_artifacts: spec.input_artifacts.map((a) => ({ ...a })),
    parameters: spec.parameters,
    request_hash_sha256: spec.request_hash_sha256,
    ...(spec.requested_by ? { requested_by: spec.requested_by } : {}),
    ...(spec.forked_from ? { forked_from: { ...spec.forked_from } } : {}),
  };
}

/** The spec back from a recorded RunCreated (resume after a crash needs nothing else). */
export function specOf(created: AgentRunCreatedData): AgentRunSpec {
  return {
    run_id: created.run_id,
    agent_name: created.agent_name,
    case_id: created.case_id ?? '',
    ...(created.parent_run_id ? { parent_run_id: created.parent_run_id } : {}),
    root_run_id: created.root_run_id,
    correlation_id: created.correlation_id ?? created.root_run_id,
    policy_versions: created.policy_versions,
    ...(created.taxonomy_versions ? { taxonomy_versions: created.taxonomy_versions } : {}),
    input_artifacts: created.input_artifacts as unknown as ArtifactRef[],
    parameters: created.parameters,
    request_hash_sha256: created.request_hash_sha256,
    ...(created.requested_by ? { requested_by: created.requested_by } : {}),
    ...(created.forked_from ? { forked_from: { ...created.forked_from } } : {}),
  };
}

/**
 * A child agent run started by `parent` in step `stepId`: same case, root, correlation and pinned policy
 * versions (so every check of the child uses the versions the root pinned); its id derives from the parent
 * run and the step, so a resumed parent finds the child it started instead of starting another.
 */
export function childSpec(parent: AgentRunSpec, stepId: string, agent: string, inputs: ArtifactRef[], parameters: Record<string, unknown>): AgentRunSpec {
  const request: HashableRequest = {
    agent_name: agent, case_id: parent.case_id, policy_versions: parent.policy_versions,
    ...(parent.taxonomy_versions ? { taxonomy_versions: parent.taxonomy_versions } : {}), input_artifacts: inputs, parameters,
  };
  return {
    ...request,
    run_id: childRunId('agent', parent.run_id, stepId),
    parent_run_id: parent.run_id,
    root_run_id: parent.root_run_id,
    correlation_id: parent.correlation_id,
    request_hash_sha256: hashRequest(request),
  };
}

/**
 * Why a run recorded at a child's id is not the child `child` describes, or undefined when it is. A child id is
 * derivable (parent run and step), and a caller's runs.start accepts a caller-chosen run_id, so a run found there may
 * have been planted: it is adopted only when it is exactly the run this parent would have started.
 */
export function childMismatch(found: RunCreatedData, child: AgentRunSpec): string | undefined {
  const differs = [
    found.run_kind !== 'agent' && 'run kind',
    found.parent_run_id !== child.parent_run_id && 'parent_run_id',
    found.agent_name !== child.agent_name && 'agent_name',
    found.case_id !== child.case_id && 'case_id',
    found.request_hash_sha256 !== child.request_hash_sha256 && 'request hash',
  ].filter((d): d is string => typeof d === 'string');
  return differs.length ? differs.join(', ') : undefined;
}
