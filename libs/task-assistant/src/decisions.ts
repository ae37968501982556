/** Builders for decisions and turn steps, and defensive readers of tool results. */
import { FAILURE_ACTIONS, TEMPLATES } from './templates';
import type { AgentDecision, ConversationEffect, PendingAction, Task, ToolCall, ToolName, ToolOutcome, TurnStep } from './types';

/** A finished turn. */
export function done(decision: AgentDecision, effect: ConversationEffect = 'none'): TurnStep {
  return { kind: 'done', decision, conversation_effect: effect };
}

function decision(partial: Partial<AgentDecision> & Pick<AgentDecision, 'decision_type'>): AgentDecision {
  return { tool_calls: null, response_text: null, clarification_question: null, pending_action: null, ...partial };
}

/** Tool calls as the decision reports them: null when none ran. */
function calls(executed: ToolCall[]): ToolCall[] | null {
  return executed.length > 0 ? executed : null;
}

/** RESPOND_ONLY with a text and no tool calls. */
export function respond(text: string): AgentDecision {
  return decision({ decision_type: 'RESPOND_ONLY', response_text: text });
}

/** INVOKE_TOOL reporting the executed calls and the reply built from their results. */
export function invoked(executed: ToolCall[], text: string): AgentDecision {
  return decision({ decision_type: 'INVOKE_TOOL', tool_calls: calls(executed), response_text: text });
}

/** ASK_CLARIFICATION; the question goes to clarification_question (response_text stays null). */
export function clarify(question: string, executed: ToolCall[] = []): AgentDecision {
  return decision({ decision_type: 'ASK_CLARIFICATION', tool_calls: calls(executed), clarification_question: question });
}

/** REQUEST_CONFIRMATION for a delete; the prompt goes to response_text. */
export function requestConfirmation(action: PendingAction, executed: ToolCall[]): AgentDecision {
  return decision({
    decision_type: 'REQUEST_CONFIRMATION',
    tool_calls: calls(executed),
    response_text: TEMPLATES.confirmation.deleteTask(action.task_description),
    pending_action: action,
  });
}

/** EXECUTE_PENDING whose task was gone: the delete found nothing, the list shows what is left. */
export function executedButGone(deleteCall: ToolCall, listCall: ToolCall, text: string): AgentDecision {
  return decision({ decision_type: 'EXECUTE_PENDING', tool_calls: [deleteCall, listCall], response_text: text });
}

/** EXECUTE_PENDING with the delete call and its reply. */
export function executed(call: ToolCall, text: string): AgentDecision {
  return decision({ decision_type: 'EXECUTE_PENDING', tool_calls: [call], response_text: text });
}

/** CANCEL_PENDING: nothing is deleted. */
export function cancelled(text: string): AgentDecision {
  return decision({ decision_type: 'CANCEL_PENDING', response_text: text });
}

/** A tool call with its 1-based position in the turn. */
export function toolCall(tool_name: ToolName, parameters: Record<string, unknown>, sequence: number): ToolCall {
  return { tool_name, parameters, sequence };
}

/**
 * The outcome of the `index`-th call of the turn, or undefined if it has not run yet.
 * An outcome for a different call than the one this turn asks for (a broken replay) is
 * read as a failure, so nothing is built on a result the engine did not ask for.
 */
export function outcomeAt(outcomes: readonly ToolOutcome[], index: number, expected: ToolCall): ToolOutcome | undefined {
  const o = outcomes[index];
  if (!o) return undefined;
  if (o.call?.tool_name !== expected.tool_name || o.call?.sequence !== expected.sequence) {
    return { call: o.call ?? expected, status: 'failed', error_code: 'UNEXPECTED_OUTCOME' };
  }
  return o;
}

/** The user-facing reply to a failed, timed-out or denied call; error codes never reach the user. */
export function failureText(o: ToolOutcome, action: string): string {
  return o.status === 'timeout' ? TEMPLATES.error.timeout() : TEMPLATES.error.toolFailure(action);
}

/** Failure phrase for a tool. */
export function actionPhrase(tool: ToolName): string {
  return FAILURE_ACTIONS[tool];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isTask(v: unknown): v is Task {
  return isRecord(v) && typeof v.task_id === 'string' && typeof v.description === 'string';
}

/** Tasks of a list_tasks result ({ tasks: Task[] }); malformed entries are skipped; null if the shape is wrong. */
export function tasksOf(result: unknown): Task[] | null {
  if (!isRecord(result) || !Array.isArray(result.tasks)) return null;
  return result.tasks.filter(isTask);
}

/** The task of an add/complete/update/delete result ({ task: Task }), or null. */
export function taskOf(result: unknown): Task | null {
  return isRecord(result) && isTask(result.task) ? result.task : null;
}

/** old_description of an update_task result, or null. */
export function oldDescriptionOf(result: unknown): string | null {
  return isRecord(result) && typeof result.old_description === 'string' ? result.old_description : null;
}
