/* eslint-disable */
// Generated from proto-contracts/schemas/audit/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * A signed checkpoint of the audit chain's head: Ed25519 signature (base64) by the audit-ledger's key (kept outside the log) over canonical JSON {statement: 'runledger.audit.checkpoint.v1', seq, entry_hash, count, key_id}. Carried by the last entry of every chain message (AuditChainBatch), answered on rl.audit.head and recorded in export manifests.
 */
export interface AuditCheckpoint {
  seq: number;
  entry_hash: string;
  count: number;
  /**
   * First 32 hex digits of the sha256 of the public key's SPKI DER.
   */
  key_id: string;
  signature: string;
}

/**
 * Answer of rl.audit.head: the signed checkpoint of the chain's current head (null while the chain is empty) and the public key that checks it.
 */
export interface AuditHead {
  checkpoint: AuditCheckpoint | null;
  key_id: string;
  public_key_pem: string;
}
/**
 * A signed checkpoint of the audit chain's head: Ed25519 signature (base64) by the audit-ledger's key (kept outside the log) over canonical JSON {statement: 'runledger.audit.checkpoint.v1', seq, entry_hash, count, key_id}. Carried by the last entry of every chain message (AuditChainBatch), answered on rl.audit.head and recorded in export manifests.
 */

/**
 * Sent on rl.audit.query: decision audit records (contract 000) by conversation, or audit events by run or by run tree. Exactly one of conversation_id, run_id or root_run_id is given, else REQUEST.INVALID (its detail: exactly one of conversation_id, run_id or root_run_id is required). A conversation's records are one user's: user_id names whose; without it a conversation_id whose records name more than one user is REQUEST.INVALID naming them (never an answer mixing users).
 */
export interface AuditQuery {
  conversation_id?: string;
  run_id?: string;
  root_run_id?: string;
  /**
   * With conversation_id only (else REQUEST.INVALID): the user whose decision audit records are answered, as its runs record it (a door's user as rl.caller.<identity>.<user_id>); "" for requests refused without a user.
   */
  user_id?: string;
  limit?: number;
}

/**
 * Answer of rl.audit.verify: the whole chain re-verified (links, signed checkpoints, the ledger's outside anchor, completeness against the log), or the first broken entry and why.
 */
export interface AuditVerification {
  ok: boolean;
  length?: number;
  head_hash?: string | null;
  checkpoint?: AuditCheckpoint | null;
  first_broken_seq?: number;
  reason?:
    | 'hash_mismatch'
    | 'prev_link_mismatch'
    | 'sequence_gap'
    | 'reordered'
    | 'duplicate'
    | 'signature_invalid'
    | 'unanchored_tail'
    | 'truncated'
    | 'missing_event'
    | 'event_mismatch'
    | 'damaged_message'
    | 'log_replaced'
    | 'forged_run';
  /**
   * The log message a damaged_message verdict names: unreadable (the server holds no readable message at that sequence), a writer's message that is not a commit of events, or a chained one that no longer reads as a writer's; for forged_run, the first event under the run id that its owner did not write (detail names the run and why).
   */
  log_seq?: number;
  detail?: string;
  /**
   * Messages of the log no Runledger writer made, present only when there are any: a JetStream API answer, or a direct get's copy of another message, that nats-server stored on a log subject because a request named it as its reply subject (an identity with JetStream API rights asked it to; no permission can refuse that). Every reader skips them, live and in a replay, and the chain never took them in, so they do not break it (ok stays true); a message the chain took in as a writer's that now reads as foreign is damaged_message.
   */
  foreign_messages?: {
    count: number;
    /**
     * The first ones in log order (at most 20; count says how many in all): the log sequence and why it is no writer's.
     */
    first: {
      log_seq: number;
      why: string;
    }[];
  };
  key_id: string;
  public_key_pem: string;
}
/**
 * A signed checkpoint of the audit chain's head: Ed25519 signature (base64) by the audit-ledger's key (kept outside the log) over canonical JSON {statement: 'runledger.audit.checkpoint.v1', seq, entry_hash, count, key_id}. Carried by the last entry of every chain message (AuditChainBatch), answered on rl.audit.head and recorded in export manifests.
 */

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
