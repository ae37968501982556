/**
 * Data shapes of contract 000 (Agent Interface Contract, v1.0.0).
 * Field names follow the contract's JSON (snake_case) so records can be stored as-is.
 */
import type { PendingConfirmation } from '@runledger/contracts';

/** Every intent the classifier can produce (contract: UserIntent.intent_type). */
export type IntentType =
  | 'CREATE_TASK'
  | 'LIST_TASKS'
  | 'COMPLETE_TASK'
  | 'UPDATE_TASK'
  | 'DELETE_TASK'
  | 'GENERAL_CHAT'
  | 'AMBIGUOUS'
  | 'CONFIRM_YES'
  | 'CONFIRM_NO';

/** One earlier message of the conversation, oldest first in a history list. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
}

/** A delete waiting for the user's yes/no (Rule 1). */
export type { PendingConfirmation };

/** Input of the decision engine. */
export interface DecisionContext {
  user_id: string;
  message: string;
  conversation_id: string;
  message_history?: HistoryMessage[];
  pending_confirmation?: PendingConfirmation | null;
}

/** Output of the classifier. */
export interface UserIntent {
  intent_type: IntentType;
  confidence: number | null;
  extracted_params: Record<string, unknown> | null;
}

/** The five tools the agent may call (Output validation: allowed tools). */
export type ToolName = 'add_task' | 'list_tasks' | 'update_task' | 'complete_task' | 'delete_task';

/** One tool invocation; `sequence` is 1-based execution order within a turn. */
export interface ToolCall {
  tool_name: ToolName;
  parameters: Record<string, unknown>;
  sequence: number;
}

/** Every decision the engine can return. */
export type DecisionType =
  | 'INVOKE_TOOL'
  | 'RESPOND_ONLY'
  | 'ASK_CLARIFICATION'
  | 'REQUEST_CONFIRMATION'
  | 'EXECUTE_PENDING'
  | 'CANCEL_PENDING';

/** The action a REQUEST_CONFIRMATION asks the user to approve. */
export interface PendingAction {
  action_type: 'DELETE_TASK';
  task_id: string;
  task_description: string;
}

/** Output of the decision engine. */
export interface AgentDecision {
  decision_type: DecisionType;
  tool_calls: ToolCall[] | null;
  response_text: string | null;
  clarification_question: string | null;
  pending_action: PendingAction | null;
}

/** A task as returned by the task tools. */
export interface Task {
  task_id: string;
  description: string;
  status: 'pending' | 'completed';
  created_at: string;
  completed_at?: string | null;
}

/** What happened to one tool call the runtime executed. */
export type ToolOutcome =
  | { call: ToolCall; status: 'ok'; result: unknown }
  | { call: ToolCall; status: 'failed' | 'timeout' | 'denied'; error_code: string };

/** What to do to the conversation's pending confirmation once the turn is done. */
export type ConversationEffect = 'none' | 'set_pending' | 'clear_pending';

/** Next step of a turn: run one more tool call, or finish with a decision. */
export type TurnStep =
  | { kind: 'invoke'; call: ToolCall }
  | { kind: 'done'; decision: AgentDecision; conversation_effect: ConversationEffect };

/** Audit contract record: one per decision. */
export interface AuditRecord {
  timestamp: string;
  conversation_id: string;
  user_id: string;
  input_message: string;
  classified_intent: string;
  decision_type: string;
  tool_calls: ToolCall[] | null;
  response_preview: string;
}

/** The intents that carry a task reference and are resolved against the task list (Rule 3). */
export type TaskActionIntent = 'COMPLETE_TASK' | 'UPDATE_TASK' | 'DELETE_TASK';
