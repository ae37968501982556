/**
 * Input validation table: user_id required (auth), message 1-4000 characters.
 * The engine never throws on bad input; it answers with the contract's message.
 */
import { canonicalUuid, isUuid } from '@runledger/kernel';
import { TEMPLATES } from './templates';
import { codePointLength } from './text';
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

/** The request's shape and bounds beyond the table (the transport's DTO, DecisionContextDto): its problems, none when well-formed. */
export type ShapeCheck = (raw: unknown) => string[];

/**
 * Issue 21 "validated once": the one check of an untrusted DecisionContext. The table's rows come first, each
 * answered with its contract template (a missing user before a bad conversation id); then `shape`, the
 * transport's structural rules (types, bounds, history and pending confirmation), answered with the invalid-input
 * message. A missing or invalid conversation_id is answered with the invalid-input
 * message (the contract has no row for it). On success the context is normalised: the conversation_id in lower case
 * (the one rule of every recorded UUID, canonicalUuid: in either case it is the same conversation), history is always
 * an array, a missing pending confirmation is null.
 */
export function validateContext(ctx: unknown, shape: ShapeCheck): Result {
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
  const problems = shape(ctx);
  if (problems.length) return reply(TEMPLATES.error.invalidInput(), problems.join('; ') || 'invalid request');
  return {
    ok: true,
    context: {
      user_id: c.user_id,
      message: c.message,
      conversation_id: canonicalUuid(c.conversation_id),
      message_history: (c.message_history as HistoryMessage[] | undefined) ?? [],
      pending_confirmation: (c.pending_confirmation as PendingConfirmation | null | undefined) ?? null,
    },
  };
}
