import type { ArtifactRef } from '@runledger/governance';
import type { AgentEffects } from '../agent-effects';
import type { AgentReasoner } from '../reasoner';
import type { GovernedAgentName } from '../../domain/agents';
import type { DelegationOutput } from '../../domain/orchestration';
import type { AgentRunSpec } from '../../domain/run-spec';

/** What one step of an agent sees: its run, earlier step outputs (restored ones included) and its ports. */
export interface StepRuntime {
  readonly spec: AgentRunSpec;
  readonly agent: GovernedAgentName;
  /** The run's start day (YYYY-MM-DD, from RunCreated): time as data, identical on resume. */
  readonly asOfDay: string;
  readonly outputs: Readonly<Record<string, unknown>>;
  readonly effects: AgentEffects;
  readonly reasoner: AgentReasoner;
  /**
   * A governed tool call, recorded on the run (ToolCallRequested, then ToolCallRecorded) and executed by the
   * tool gateway as a tool_gateway child run per call id; a call id with a recorded outcome is answered from the
   * log, and a retryable failure is tried again under a new call id (`transcribe#2`), so a tool may run more
   * than once for one step. Returns the tool's output; a denied call throws POLICY_DENIED, a failure its code.
   */
  tool(lane: string, callId: string, toolName: string, parameters: Record<string, unknown>): Promise<unknown>;
  /** Runs `agent` as a correlated child agent run of this run (ORCHESTRATOR only). */
  delegate(stepId: string, agent: GovernedAgentName, inputs: ArtifactRef[], parameters: Record<string, unknown>): Promise<DelegationOutput>;
}

/** The run's payload once every step completed: its output artifacts and a small result. */
export interface AgentOutcome {
  output_artifacts: ArtifactRef[];
  result: Record<string, unknown>;
}

/** One agent's behaviour: what each workflow step of its profile does, and what the run outputs. */
export interface AgentBehaviour {
  runStep(stepId: string, rt: StepRuntime): Promise<unknown>;
  outcome(outputs: Readonly<Record<string, unknown>>, spec: AgentRunSpec): AgentOutcome;
}

/** Typed access to an earlier step's recorded output. */
export function outputOf<T>(outputs: Readonly<Record<string, unknown>>, stepId: string): T {
  return outputs[stepId] as T;
}

export function unknownStep(agent: string, stepId: string): never {
  throw new Error(`${agent} has no step ${stepId}`);
}
