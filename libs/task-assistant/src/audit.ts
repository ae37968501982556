/** Audit contract: every decision produces one record. */
import type { AgentDecision, AuditRecord, DecisionContext, UserIntent } from './types';
import { truncateChars } from '@runledger/kernel';

/**
 * The classified_intent of a request refused before it was classified (invalid input, no user): the contract types
 * the field as a string, and AMBIGUOUS would say the message was classified as unclear (or that classification failed).
 */
export const NOT_CLASSIFIED = 'NOT_CLASSIFIED';

/** How much of the reply the audit keeps. */
export const RESPONSE_PREVIEW_CHARS = 200;

/**
 * Builds the audit record of one decision. response_preview is the first 200 characters
 * (code points, so an emoji is never cut in half) of response_text, else of the
 * clarification question, else ''. `intent` null: the request was refused before classification (NOT_CLASSIFIED).
 */
export function buildAuditRecord(input: {
  timestamp: string;
  context: DecisionContext;
  intent: UserIntent | null;
  decision: AgentDecision;
}): AuditRecord {
  const { timestamp, context, intent, decision } = input;
  const text = decision.response_text ?? decision.clarification_question ?? '';
  return {
    timestamp,
    conversation_id: context.conversation_id,
    user_id: context.user_id,
    input_message: context.message,
    classified_intent: intent?.intent_type ?? NOT_CLASSIFIED,
    decision_type: decision.decision_type,
    tool_calls: decision.tool_calls ? decision.tool_calls.map((c) => ({ ...c, parameters: { ...c.parameters } })) : null,
    response_preview: truncateChars(text, RESPONSE_PREVIEW_CHARS),
  };
}
