import { evolveCheckpoint, type Checkpoint } from '@runledger/agent-runtime';
import type { PolicyVersions } from '@runledger/governance';
import { deterministicUuid } from '@runledger/kernel';
import { isTerminal, withRestored, type RunState } from '@runledger/runs';
import { isGovernedAgent } from './agents';
import { AgentRunCreatedData, AgentRunSpec, hashRequest, specOf } from './run-spec';

/** Where a fork comes from (RunCreated.forked_from): the source run, its checkpoint (a step id), the operator's key. */
export interface ForkedFrom {
  run_id: string;
  checkpoint: string;
  request_id: string;
  requested_by?: string;
}

export type ForkRefusalCode = 'FORK.RUN_NOT_FOUND' | 'FORK.NOT_FORKABLE' | 'FORK.SOURCE_NOT_TERMINAL' | 'FORK.CHECKPOINT_NOT_IN_RUN' | 'FORK.REQUEST_CONFLICT';
export type ForkDecision = { ok: true; spec: AgentRunSpec } | { ok: false; code: ForkRefusalCode; message: string };

/** The fork's run id derives from the source and the operator's request_id: the same request forks once. */
export function forkRunId(sourceRunId: string, requestId: string): string {
  return deterministicUuid('run-fork', sourceRunId, requestId);
}

/** A StepCompleted of the source, in log order: the checkpoints a fork may start from. */
interface CheckpointEventLike {
  type: string;
  data: unknown;
}

/**
 * The source's checkpoint as it stood right after `stepId` completed: its StepCompleted events folded up to and
 * including that step's (log position, so steps of a parallel group completed before it are in, later ones out).
 * Null when the source never completed that step. Pure: the source is ended, so the same events give the same
 * checkpoint on every resume of the fork (restored outputs are never recomputed, INV-CP-002).
 */
export function checkpointAt(sourceEvents: readonly CheckpointEventLike[], stepId: string): Checkpoint | null {
  let cp: Checkpoint | null = null;
  for (const e of sourceEvents) {
    cp = evolveCheckpoint(cp, e as Parameters<typeof evolveCheckpoint>[1]);
    if (e.type === 'StepCompleted' && (e.data as { step_id?: unknown } | null)?.step_id === stepId) return cp;
  }
  return null;
}

/** How far a fork of a fork of … is followed back (each link is an operator's fork of an ended run). */
export const MAX_FORK_CHAIN = 32;

/**
 * Everything a fork restores: the source's checkpoint at `from.checkpoint`, over what the source itself restored when
 * it is a fork too (its restored steps live in its own source's log, not in its own), followed back link by link.
 * Null when the source never completed that step.
 */
export async function restoredCheckpoint(
  from: Pick<ForkedFrom, 'run_id' | 'checkpoint'>,
  load: (runId: string) => Promise<{ state: RunState; events: readonly CheckpointEventLike[] }>,
  depth = 0,
): Promise<Checkpoint | null> {
  const { state, events } = await load(from.run_id);
  const own = checkpointAt(events, from.checkpoint);
  const upstream = (state.run as AgentRunCreatedData | undefined)?.forked_from;
  if (!own || !upstream || depth >= MAX_FORK_CHAIN) return own;
  return withRestored(await restoredCheckpoint(upstream, load, depth + 1), own);
}

/**
 * Decides a fork request on the source's folded state and events (issue 25). Forkable: a top-level governed agent
 * run (a caller's runs.start) that has ended; a child run is part of its parent's workflow (fork the parent), and task,
 * session and choke-point runs are not workflows of checkpointed agent steps. The fork is the source's request
 * with a new run id (its own root and correlation), the new policy pin, the same case, inputs, parameters and
 * caller, and `forked_from`. `existing`: the run already at the fork's id, which must be this very fork.
 */
export function decideFork(
  source: RunState,
  sourceEvents: readonly CheckpointEventLike[],
  request: { from_step: string; request_id: string; requested_by?: string; policy_versions: PolicyVersions },
  existing?: AgentRunCreatedData,
): ForkDecision {
  const refuse = (code: ForkRefusalCode, message: string): ForkDecision => ({ ok: false, code, message });
  const created = source.run as AgentRunCreatedData | undefined;
  if (!created) return refuse('FORK.RUN_NOT_FOUND', 'No run with that id to fork.');
  if (created.run_kind !== 'agent' || !isGovernedAgent(created.agent_name)) {
    return refuse('FORK.NOT_FORKABLE', `This ${created.run_kind} run of ${created.agent_name} is not a governed agent workflow; only runs a caller started (rl.caller.<caller>.runs.start) can be forked.`);
  }
  if (created.parent_run_id) return refuse('FORK.NOT_FORKABLE', `This run is a child of ${created.parent_run_id}; fork that run from the step that started it.`);
  if (!isTerminal(source)) return refuse('FORK.SOURCE_NOT_TERMINAL', `The source run is ${source.status}; fork it once it has ended.`);
  if (!checkpointAt(sourceEvents, request.from_step)) {
    const steps = sourceEvents.filter((e) => e.type === 'StepCompleted').map((e) => (e.data as { step_id: string }).step_id);
    return refuse('FORK.CHECKPOINT_NOT_IN_RUN', `The source run has no completed step ${request.from_step}; its checkpoints: ${steps.join(', ') || 'none'}.`);
  }
  const forked_from: ForkedFrom = {
    run_id: created.run_id, checkpoint: request.from_step, request_id: request.request_id,
    ...(request.requested_by ? { requested_by: request.requested_by } : {}),
  };
  const base = specOf(created);
  const policy_versions = { lanes: request.policy_versions.lanes, roles: request.policy_versions.roles };
  const run_id = forkRunId(created.run_id, request.request_id);
  const spec: AgentRunSpec = {
    ...base, run_id, root_run_id: run_id, correlation_id: run_id, policy_versions,
    request_hash_sha256: hashRequest({
      agent_name: base.agent_name, case_id: base.case_id, policy_versions, input_artifacts: base.input_artifacts, parameters: base.parameters,
      ...(base.taxonomy_versions ? { taxonomy_versions: base.taxonomy_versions } : {}),
    }),
    forked_from,
  };
  if (existing) {
    const was = existing.forked_from;
    const same = was && was.run_id === forked_from.run_id && was.checkpoint === forked_from.checkpoint && existing.policy_versions.lanes === policy_versions.lanes && existing.policy_versions.roles === policy_versions.roles;
    if (!same) return refuse('FORK.REQUEST_CONFLICT', `request_id ${request.request_id} already forked run ${existing.run_id} from another checkpoint or under another policy.`);
    // A repeat: the fork as it was recorded (its requester stays the first one's).
    return { ok: true, spec: specOf(existing) };
  }
  return { ok: true, spec };
}
