/* eslint-disable */
// Generated from proto-contracts/schemas/audit/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Sent on rl.audit.query: decision audit records (contract 000) by conversation, or audit events by run.
 */
export interface AuditQuery {
  conversation_id?: string;
  run_id?: string;
  root_run_id?: string;
  limit?: number;
}

/**
 * Contract 000 audit record, one per agent decision.
 */
export interface DecisionAuditRecord {
  timestamp: string;
  conversation_id: string;
  user_id: string;
  input_message: string;
  classified_intent: string;
  decision_type: string;
  tool_calls: unknown[] | null;
  response_preview: string;
  run_id?: string;
}
