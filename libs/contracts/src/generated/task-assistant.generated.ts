/* eslint-disable */
// Generated from proto-contracts/schemas/task-assistant/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Contract 000 AgentDecision plus the run id, sent after the decision was carried out.
 */
export interface AgentDecisionReply {
  run_id: string;
  decision_type:
    | 'INVOKE_TOOL'
    | 'RESPOND_ONLY'
    | 'ASK_CLARIFICATION'
    | 'REQUEST_CONFIRMATION'
    | 'EXECUTE_PENDING'
    | 'CANCEL_PENDING';
  tool_calls: null | DecisionToolCall[];
  response_text: string | null;
  clarification_question: string | null;
  pending_action: null | {
    action_type: 'DELETE_TASK';
    task_id: string;
    task_description: string;
  };
}
export interface DecisionToolCall {
  tool_name: 'add_task' | 'list_tasks' | 'update_task' | 'complete_task' | 'delete_task';
  parameters: {};
  sequence: number;
}

/**
 * Sent by decision on rl.intent.classify.
 */
export interface ClassifyIntentRequest {
  message: string;
  /**
   * @maxItems 200
   */
  history: HistoryMessage[];
  pending_confirmation_active: boolean;
}
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
}

/**
 * Contract 000 input, sent on agents.task-assistant.process. A caller that omits message_history and pending_confirmation gets them from the conversation's projection of the log. A caller that sends either one supplies the turn's whole context: the other, when not sent, is empty (no history, nothing pending), and the conversation goes on from that context (a pending confirmation it did not send is no longer pending).
 */
export interface DecisionContext {
  /**
   * Without control characters (C0, DEL, C1): an operator types it back to erase its data.
   */
  user_id: string;
  message: string;
  conversation_id: string;
  /**
   * Optional idempotency key: the same request_id always maps to the same run.
   */
  request_id?: string;
  /**
   * @maxItems 200
   */
  message_history?: HistoryMessage[];
  pending_confirmation?: null | PendingConfirmation;
}
export interface PendingConfirmation {
  action_type: 'DELETE_TASK';
  task_id: string;
  /**
   * Contract 000 task description: one that shows nothing (invisible characters only) is as empty as "" (the task-assistant lib's VISIBLE_TEXT_PATTERN, README Task descriptions).
   */
  task_description: string;
  created_at: string;
  expires_at: string;
}

/**
 * Contract 000 UserIntent, the reply of rl.intent.classify.
 */
export interface UserIntentReply {
  intent_type:
    | 'CREATE_TASK'
    | 'LIST_TASKS'
    | 'COMPLETE_TASK'
    | 'UPDATE_TASK'
    | 'DELETE_TASK'
    | 'GENERAL_CHAT'
    | 'AMBIGUOUS'
    | 'CONFIRM_YES'
    | 'CONFIRM_NO';
  confidence: number | null;
  extracted_params: {} | null;
  /**
   * Which classifier answered (rules, llm).
   */
  classifier?: string;
  model_call?: IntentModelCall;
}
/**
 * The LLM classifier's model call, as it happened: target, outcome, latency, usage, and whether the answer came from the rules instead (and why).
 */
export interface IntentModelCall {
  provider: string;
  model: string;
  status: 'ok' | 'failed';
  latency_ms: number;
  tokens?: {
    inputTokens?: number;
    outputTokens?: number;
    totalTokens?: number;
  };
  error?: string;
  /**
   * True when the rules classified the message because the model failed or answered off-contract.
   */
  fell_back: boolean;
  fallback_reason?: string;
}
