import { AgentDecision, TEMPLATES } from '@runledger/task-assistant';
import type { RunOutcome } from '../runs/run-waiter';
import type { TaskRunResult } from './task-run.types';

/**
 * What the caller is told once the run has ended: its decision, or, for a run that ended without one, what happened
 * (cancelled by an operator, denied, the user's data erased, failed), never "I didn't understand that". The decision
 * is the DecisionRecorded appended with RunCompleted (issue 21: stored once); a run recorded before that holds it in
 * RunCompleted's result too, and is read from there.
 */
export function decisionOf({ terminal, commit }: Pick<RunOutcome, 'terminal' | 'commit'>): AgentDecision {
  if (terminal.type === 'RunCompleted') {
    const recorded = commit.find((e) => e.type === 'DecisionRecorded')?.data as { decision?: AgentDecision } | undefined;
    const decision = recorded?.decision ?? (terminal.data as { result?: TaskRunResult }).result?.decision;
    if (decision) return decision;
  }
  if (terminal.type === 'RunCancelled') return respondOnly(TEMPLATES.ours.cancelled());
  if (terminal.type === 'RunDenied') return respondOnly(TEMPLATES.ours.denied());
  const code = (terminal.data as { error?: { error_code?: string } }).error?.error_code;
  return respondOnly(code === 'DATA.ERASED' ? TEMPLATES.ours.erased() : TEMPLATES.ours.failed());
}

export function respondOnly(text: string): AgentDecision {
  return { decision_type: 'RESPOND_ONLY', tool_calls: null, response_text: text, clarification_question: null, pending_action: null };
}
