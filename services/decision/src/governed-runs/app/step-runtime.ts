import { DelegationChain } from '@runledger/agent-runtime';
import type { ArtifactRef } from '@runledger/governance';
import { retrying, RETRY, RunEngine, RunRepository, ToolCallResult } from '@runledger/runs';
import type { GovernedAgentName } from '../domain/agents';
import { AgentStepError, policyDenied } from '../domain/errors';
import type { DelegationOutput } from '../domain/orchestration';
import { AgentRunSpec, childMismatch, childSpec } from '../domain/run-spec';
import type { AgentEffects } from './agent-effects';
import type { StepRuntime } from './behaviours';
import type { AgentReasoner } from './reasoner';

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

export interface RuntimeDeps {
  runs: RunRepository;
  engine: RunEngine;
  effects: AgentEffects;
  reasoner: AgentReasoner;
  /** The run's delegation chain (INV-DT-001/002), ending at this run's agent. */
  chain: () => Promise<DelegationChain>;
  /** Carries a child run to its end (or to where it can go no further now). */
  carry: (spec: AgentRunSpec) => Promise<void>;
}

/** The StepRuntime of one step: ports bound to this run, with tool calls and child runs recorded on it first. */
export function stepRuntime(spec: AgentRunSpec, asOfDay: string, outputs: Readonly<Record<string, unknown>>, deps: RuntimeDeps): StepRuntime {
  const { engine, effects } = deps;
  /** One tool call, recorded on the run before (ToolCallRequested) and after (ToolCallRecorded). */
  const call = async (callId: string, toolName: string, parameters: Record<string, unknown>, lane: string): Promise<ToolCallResult> => {
    // An operator's cancel is honoured before each tool call: one read of the run, so a cancel lands within one effect.
    await engine.checkCancel();
    // Sequence numbers are decided in the session's turn: parallel steps each get their own.
    return engine.toolCall({ call_id: callId, tool_name: toolName, parameters }, () => effects.invokeTool(lane, callId, toolName, parameters));
  };
  return {
    spec, agent: spec.agent_name as GovernedAgentName, asOfDay, outputs, effects, reasoner: deps.reasoner,

    async tool(lane, callId, toolName, parameters) {
      // A retryable failure (the tool's own dependency was down) is tried again as a new call with its own
      // tool_gateway run: a call's recorded outcome is final, so a retry cannot reuse its call id.
      const { result: res, attempts } = await retrying(
        RETRY.toolAttempt,
        (n) => call(n === 0 ? callId : `${callId}#${n + 1}`, toolName, parameters, lane),
        (r) => r.status === 'ok' || r.status === 'denied' || !(r.error?.retryable ?? true),
      );
      if (res.status === 'ok') return res.result;
      if (res.status === 'denied') throw policyDenied(`Tool ${toolName} was denied: ${res.error?.message ?? 'policy'}`);
      throw new AgentStepError(res.error?.error_code ?? 'TOOL.FAILED', `Tool ${toolName} failed after ${attempts} attempt(s): ${res.error?.message ?? res.status}`, res.error?.retryable ?? true);
    },

    async delegate(stepId: string, agent: GovernedAgentName, inputs: ArtifactRef[], parameters: Record<string, unknown>): Promise<DelegationOutput> {
      await engine.checkCancel();
      const allowed = (await deps.chain()).delegate(agent);
      if (!allowed.ok) throw new AgentStepError(allowed.code, allowed.message);
      const child = childSpec(spec, stepId, agent, inputs, parameters);
      // Never adopt a run we did not start: the child id is derivable and run ids can be chosen by callers.
      const found = (await deps.runs.load(child.run_id)).state.run;
      const mismatch = found && childMismatch(found, child);
      if (mismatch) {
        throw new AgentStepError('DELEGATION.CHILD_CONFLICT', `Run ${child.run_id} already exists but is not the ${agent} run this step starts (${mismatch} differ); it is not adopted.`);
      }
      await engine.child(child.run_id, agent, stepId, async () => {
        try {
          await deps.carry(child);
        } catch (err) {
          throw new CarryInterrupted(err);
        }
      });
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
