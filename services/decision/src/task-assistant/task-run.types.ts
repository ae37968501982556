import { childRequestHash } from '@runledger/runs';
import type { AgentDecision, DecisionContext, PendingConfirmation } from '@runledger/task-assistant';

export const TASK_AGENT = 'TASK_ASSISTANT';
export const TASK_LANE = 'TASKS';
/** Durable inbox of the decision service. */
export const DECISION_INBOX = 'decision';

/** The command queued for the worker: one agent request, validated at the boundary. */
export interface AgentRequested {
  run_id: string;
  agent_name: typeof TASK_AGENT;
  request: DecisionContext;
  /** True when the caller sent history / pending itself: those are honoured instead of the projection. */
  caller_context: boolean;
}

/** What makes two requests "the same" for one run: who, where and what was said (not the advisory history). */
export function taskRequestHash(r: Pick<DecisionContext, 'user_id' | 'conversation_id' | 'message'>): string {
  return childRequestHash({ agent_name: TASK_AGENT, user_id: r.user_id, conversation_id: r.conversation_id, message: r.message });
}

/**
 * A completed task-assistant run's result (the reply carries its decision): recorded once, as DecisionRecorded, which
 * the run's state folds into `result`; RunCompleted holds it too only in runs recorded before issue 21.
 */
export interface TaskRunResult {
  decision: AgentDecision;
}

/** Checkpointed steps of a task-assistant run (INV-AGT-003 order; INV-CP-002 resume after the last). */
export const STEPS = { context: 0, classify: 1 } as const;

/**
 * The context step's checkpoint: where the turn's history and pending confirmation come from, by reference — the
 * conversation at the version this turn read, or the caller's own (in the request, which the log holds in the inbox
 * command). Runs checkpointed before the reference carry a copy instead (`history`, `pending_confirmation`).
 */
export interface ContextCheckpoint {
  /** The conversation's version (its last event's sequence) when this turn read it. */
  conversation_version?: number;
  /** The conversation's last recorded turn when this one read it (staleness check when it is recorded). */
  based_on_run_id?: string | null;
  /** A copy of the history, in runs checkpointed before the reference. */
  history?: DecisionContext['message_history'];
  /** A copy of the pending confirmation, in runs checkpointed before the reference. */
  pending_confirmation?: PendingConfirmation | null;
}

/** The turn's context as the decision uses it (in memory; the log holds its ContextCheckpoint). */
export interface ResolvedContext {
  history: DecisionContext['message_history'];
  pending_confirmation: PendingConfirmation | null;
  based_on_run_id?: string | null;
}
