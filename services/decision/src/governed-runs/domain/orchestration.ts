import type { ArtifactRef } from '@runledger/governance';
import type { GovernedAgentName } from './agents';
import { DEFAULT_COA_VERSION } from './mapping';
import { textOf } from './text';

/** One delegation of the ORCHESTRATOR's workflow: which agent a step runs (§4.1 required child runs). */
export const DELEGATIONS: Readonly<Record<string, GovernedAgentName>> = {
  intake: 'INTAKE_AGENT',
  interview: 'INTERVIEW_AGENT',
  mapping: 'MAPPING_AGENT',
  export: 'EXPORT_AGENT',
};

/** The recorded output of a delegate step (checkpointed: a resumed orchestrator never starts the child twice). */
export interface DelegationOutput {
  step_id: string;
  agent_name: string;
  child_run_id: string | null;
  outcome: 'success' | 'skipped';
  output_artifacts: ArtifactRef[];
}

export interface OrchestratorParameters {
  client_session_id?: string;
  coa_version?: string;
  export?: boolean;
}

export function orchestratorParameters(parameters: Record<string, unknown>): OrchestratorParameters {
  return {
    ...(textOf(parameters.client_session_id) ? { client_session_id: textOf(parameters.client_session_id) } : {}),
    ...(textOf(parameters.coa_version) ? { coa_version: textOf(parameters.coa_version) } : {}),
    export: parameters.export === true,
  };
}

/** EXPORT_AGENT runs only when asked (§4.1 "as needed"). */
export function isDelegationWanted(stepId: string, params: OrchestratorParameters): boolean {
  return stepId !== 'export' || params.export === true;
}

const ofKind = (refs: readonly ArtifactRef[], ...kinds: string[]) => refs.filter((r) => kinds.includes(r.kind));
const outputsOf = (prior: Readonly<Record<string, unknown>>, stepId: string): ArtifactRef[] => (prior[stepId] as DelegationOutput | undefined)?.output_artifacts ?? [];

/**
 * What each child receives: the orchestrator's own inputs of the kinds that child reads, plus what earlier
 * children produced (intake_summary for the interview, transcript and notes for mapping, everything for export).
 */
export function childInputs(stepId: string, inputs: readonly ArtifactRef[], prior: Readonly<Record<string, unknown>>): ArtifactRef[] {
  switch (stepId) {
    case 'intake':
      return ofKind(inputs, 'client_intake_form', 'initial_upload');
    case 'interview':
      return [...ofKind(inputs, 'client_session', 'interview_recording', 'prompt_pack'), ...ofKind(outputsOf(prior, 'intake'), 'intake_summary')];
    case 'mapping':
      return [...ofKind(inputs, 'source_document'), ...ofKind(outputsOf(prior, 'interview'), 'transcript', 'interview_notes')];
    case 'export':
      return [...inputs, ...['intake', 'interview', 'mapping'].flatMap((s) => outputsOf(prior, s))];
    default:
      return [];
  }
}

export function childParameters(stepId: string, params: OrchestratorParameters): Record<string, unknown> {
  switch (stepId) {
    case 'interview':
      return params.client_session_id ? { client_session_id: params.client_session_id } : {};
    case 'mapping':
      return { coa_version: params.coa_version ?? DEFAULT_COA_VERSION };
    default:
      return {};
  }
}

/** The workflow summary artifact (§4.1 output): which child ran, its run id and what it produced. */
export function workflowSummary(caseId: string, delegations: readonly DelegationOutput[]) {
  return {
    case_id: caseId,
    children: delegations.map((d) => ({
      step_id: d.step_id, agent_name: d.agent_name, child_run_id: d.child_run_id, outcome: d.outcome,
      outputs: d.output_artifacts.map((a) => ({ artifact_id: a.artifact_id, kind: a.kind, sha256: a.sha256 })),
    })),
    child_run_ids: delegations.flatMap((d) => (d.child_run_id ? [d.child_run_id] : [])),
  };
}
