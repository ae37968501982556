import { DelegationChain } from '@runledger/agent-runtime';
import type { ToolInvocationResult } from '@runledger/contracts';
import type { ArtifactRef } from '@runledger/governance';
import { childRunId, RunRepository } from '@runledger/runs';
import type { GovernedAgentName } from '../domain/agents';
import { AgentStepError, policyDenied } from '../domain/errors';
import type { DelegationOutput } from '../domain/orchestration';
import { AgentRunSpec, childMismatch, childSpec } from '../domain/run-spec';
import type { AgentEffects } from './agent-effects';
import type { StepRuntime } from './behaviours';
import type { AgentReasoner } from './reasoner';
import type { RunWriter } from './run-writer';

/**
 * Thrown when a child agent run could not be carried for a reason that is not the child's outcome (the log or
 * the bus failed under it): the parent must not record a failure for a child that is still open, so the worker
 * gives the command back to the inbox and both runs resume from their checkpoints.
 */
export class CarryInterrupted extends Error {
  constructor(override readonly cause: unknown) {
    super(`carrying a child run was interrupted: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'CarryInterrupted';
  }
}

/** Thrown when the run has a RunCancelRequested: the worker records RunCancelled instead of going on. */
export class CancelRequested extends Error {}

/** Pauses before the 2nd and 3rd attempt of a tool call that failed retryably. */
const TOOL_RETRY_DELAYS_MS = [1_000, 3_000];

export interface RuntimeDeps {
  runs: RunRepository;
  writer: RunWriter;
  effects: AgentEffects;
  reasoner: AgentReasoner;
  /** The run's delegation chain (INV-DT-001/002), ending at this run's agent. */
  chain: () => Promise<DelegationChain>;
  /** Carries a child run to its end (or to where it can go no further now). */
  carry: (spec: AgentRunSpec) => Promise<void>;
}

/**
 * An operator's cancel (rl.runs.cancel) is honoured before the run's next step and before each tool call
 * or child run it starts: one read of the run, so a cancel lands within one effect.
 */
export async function stopIfCancelRequested(writer: RunWriter): Promise<void> {
  await writer.refresh();
  if (writer.state.cancel_requested) throw new CancelRequested(writer.state.cancel_requested.reason);
}

/** The StepRuntime of one step: ports bound to this run, with tool calls and child runs recorded on it first. */
export function stepRuntime(spec: AgentRunSpec, asOfDay: string, outputs: Readonly<Record<string, unknown>>, deps: RuntimeDeps): StepRuntime {
  const { writer, effects } = deps;
  /** One tool call, recorded on the run before (ToolCallRequested) and after (ToolCallRecorded). */
  const call = async (callId: string, toolName: string, parameters: Record<string, unknown>, lane: string): Promise<ToolInvocationResult> => {
    await stopIfCancelRequested(writer);
    const child_run_id = childRunId('tool_gateway', spec.run_id, callId);
    // Decided in the writer's turn: parallel steps each get their own sequence number.
    await writer.append((state) => (state.tool_calls.some((c) => c.call_id === callId) ? [] : [
      { type: 'ToolCallRequested', data: { call_id: callId, sequence: state.tool_calls.length + 1, tool_name: toolName, parameters, child_run_id } },
    ]), `tool:${callId}:requested`);
    // A call requested before a crash is asked again under the same call id: the gateway answers its recorded
    // outcome if it has one; if it crashed before recording, the tool runs again (tools are deterministic).
    const res = await effects.invokeTool(lane, callId, toolName, parameters);
    await writer.append((state) => (state.tool_calls.find((c) => c.call_id === callId)?.status !== 'requested' ? [] : [{
      type: 'ToolCallRecorded',
      data: { call_id: callId, child_run_id: res.child_run_id, status: res.status, ...(res.result !== undefined ? { result: res.result } : {}), ...(res.error ? { error: res.error } : {}) },
    }]), `tool:${callId}:recorded`);
    return res;
  };
  return {
    spec, agent: spec.agent_name as GovernedAgentName, asOfDay, outputs, effects, reasoner: deps.reasoner,

    async tool(lane, callId, toolName, parameters) {
      // A retryable failure (the tool's own dependency was down) is tried again as a new call with its own
      // tool_gateway run: a call's recorded outcome is final, so a retry cannot reuse its call id.
      for (let attempt = 1; ; attempt++) {
        const res = await call(attempt === 1 ? callId : `${callId}#${attempt}`, toolName, parameters, lane);
        if (res.status === 'ok') return res.result;
        if (res.status === 'denied') throw policyDenied(`Tool ${toolName} was denied: ${res.error?.message ?? 'policy'}`);
        const retryable = res.error?.retryable ?? true;
        const delay = TOOL_RETRY_DELAYS_MS[attempt - 1];
        if (!retryable || delay === undefined) {
          throw new AgentStepError(res.error?.error_code ?? 'TOOL.FAILED', `Tool ${toolName} failed after ${attempt} attempt(s): ${res.error?.message ?? res.status}`, retryable);
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    },

    async delegate(stepId: string, agent: GovernedAgentName, inputs: ArtifactRef[], parameters: Record<string, unknown>): Promise<DelegationOutput> {
      await stopIfCancelRequested(writer);
      const allowed = (await deps.chain()).delegate(agent);
      if (!allowed.ok) throw new AgentStepError(allowed.code, allowed.message);
      const child = childSpec(spec, stepId, agent, inputs, parameters);
      // Never adopt a run we did not start: the child id is derivable and run ids can be chosen by callers.
      const found = (await deps.runs.load(child.run_id)).state.run;
      const mismatch = found && childMismatch(found, child);
      if (mismatch) {
        throw new AgentStepError('DELEGATION.CHILD_CONFLICT', `Run ${child.run_id} already exists but is not the ${agent} run this step starts (${mismatch} differ); it is not adopted.`);
      }
      if (!writer.state.child_run_ids.includes(child.run_id)) {
        await writer.append([{ type: 'ChildRunStarted', data: { child_run_id: child.run_id, run_kind: 'agent', agent_name: agent } }], `child:${stepId}`);
      }
      try {
        await deps.carry(child);
      } catch (err) {
        throw new CarryInterrupted(err);
      }
      const { state } = await deps.runs.load(child.run_id);
      if (state.status === 'completed') {
        return { step_id: stepId, agent_name: agent, child_run_id: child.run_id, outcome: 'success', output_artifacts: state.output_artifacts as unknown as ArtifactRef[] };
      }
      const e = state.error;
      if (state.status === 'denied' || e?.error_code === 'POLICY_DENIED') throw policyDenied(`${agent} run ${child.run_id} was denied: ${e?.message ?? 'policy'}`);
      throw new AgentStepError('CHILD_RUN_FAILED', `${agent} run ${child.run_id} ended ${state.status}${e ? ` (${e.error_code}: ${e.message})` : ''}.`, e?.retryable ?? false);
    },
  };
}
