/**
 * Input validation table: user_id required (auth), message 1-4000 characters.
 * The engine never throws on bad input; it answers with the contract's message.
 */
import { TEMPLATES } from './templates';
import { codePointLength, isUuid } from './text';
import type { AgentDecision, DecisionContext, HistoryMessage, PendingConfirmation } from './types';

/** Message bounds (Input validation: message 1-4000 chars, counted in characters, not UTF-16 units). */
export const MESSAGE_MAX = 4000;

type Result = { ok: true; context: DecisionContext } | { ok: false; decision: AgentDecision; reason: string };

function reply(text: string, reason: string): Result {
  return {
    ok: false,
    reason,
    decision: { decision_type: 'RESPOND_ONLY', tool_calls: null, response_text: text, clarification_question: null, pending_action: null },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isHistoryMessage(v: unknown): v is HistoryMessage {
  return isRecord(v) && (v.role === 'user' || v.role === 'assistant') && typeof v.content === 'string' && typeof v.timestamp === 'string';
}

function isPending(v: unknown): v is PendingConfirmation {
  return (
    isRecord(v) &&
    v.action_type === 'DELETE_TASK' &&
    typeof v.task_id === 'string' &&
    typeof v.task_description === 'string' &&
    typeof v.created_at === 'string' &&
    typeof v.expires_at === 'string'
  );
}

/**
 * Validates an untrusted DecisionContext. On success returns a normalised copy:
 * history is always an array (malformed entries dropped: history is advisory), and a
 * malformed pending confirmation becomes null (nothing may be deleted on its strength).
 * A missing or invalid conversation_id is answered with the invalid-input message
 * (the contract has no row for it).
 */
export function validateContext(ctx: unknown): Result {
  const c = isRecord(ctx) ? ctx : {};
  if (typeof c.user_id !== 'string' || c.user_id.trim() === '') {
    return reply(TEMPLATES.error.authMissing(), 'user_id missing');
  }
  if (typeof c.message !== 'string' || c.message.trim() === '' || codePointLength(c.message) > MESSAGE_MAX) {
    return reply(TEMPLATES.error.invalidInput(), 'message must be 1-4000 characters');
  }
  if (!isUuid(c.conversation_id)) {
    return reply(TEMPLATES.error.invalidInput(), 'conversation_id must be a uuid');
  }
  const history = Array.isArray(c.message_history) ? c.message_history.filter(isHistoryMessage) : [];
  return {
    ok: true,
    context: {
      user_id: c.user_id,
      message: c.message,
      conversation_id: c.conversation_id,
      message_history: history,
      pending_confirmation: isPending(c.pending_confirmation) ? c.pending_confirmation : null,
    },
  };
}
