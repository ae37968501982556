/* eslint-disable */
// Generated from proto-contracts/schemas/runtime/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Sent to db-write on rl.db.read. Reads are scoped like writes: a caller only ever sees its own user's or case's documents.
 */
export interface DbReadRequest {
  collection: string;
  /**
   * An id the document store keeps: no control characters, well-formed text (no lone UTF-16 surrogate), at most 512 bytes as UTF-8 (REQUEST.INVALID otherwise, naming document_id).
   */
  document_id?: string;
  /**
   * At most 16384 bytes as JSON (REQUEST.INVALID beyond).
   */
  filter?: {};
  limit?: number;
  governance: GovernanceScope;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */
export interface GovernanceScope {
  parent_run_id: string;
  root_run_id: string;
  correlation_id?: string;
  agent_name: string;
  lane: string;
  case_id?: string;
  /**
   * The run's user; a caller door's user is rl.caller.<identity>.<user_id> (README "A caller's own door").
   */
  user_id?: string;
  /**
   * At most 4096 bytes as JSON (REQUEST.INVALID beyond).
   */
  scope?: {
    [k: string]: string;
  };
  policy_versions: PolicyVersions;
}
export interface PolicyVersions {
  lanes: string;
  roles: string;
}

export interface DbResult {
  child_run_id?: string;
  status: 'ok' | 'denied' | 'not_found' | 'failed';
  document?: {};
  documents?: {}[];
  error?: RunError;
  /**
   * The document as it was before an update, upsert or delete.
   */
  previous?: {};
}
/**
 * Contract 001 §2.2 error: a stable code, a bounded message, and whether retrying can help.
 */
export interface RunError {
  error_code: string;
  message: string;
  retryable: boolean;
}

/**
 * Sent to db-write on rl.db.write: the only way to change domain data. Runs as a db_write child run whose id derives from parent_run_id and write_id.
 */
export interface DbWriteRequest {
  write_id: string;
  collection: string;
  operation: 'append' | 'upsert' | 'update' | 'delete';
  /**
   * An id the document store keeps: no control characters, well-formed text (no lone UTF-16 surrogate), at most 512 bytes as UTF-8 (REQUEST.INVALID otherwise, naming document_id).
   */
  document_id?: string;
  /**
   * At most 65536 bytes as JSON (REQUEST.INVALID beyond).
   */
  document?: {};
  /**
   * At most 65536 bytes as JSON (REQUEST.INVALID beyond).
   */
  patch?: {};
  governance: GovernanceScope;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */

/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */

/**
 * Contract 001 §2.2 error: a stable code, a bounded message, and whether retrying can help.
 */

export interface ToolInvocationResult {
  child_run_id: string;
  call_id: string;
  tool_name: string;
  status: 'ok' | 'failed' | 'timeout' | 'denied';
  result?: unknown;
  error?: RunError;
  truncated?: boolean;
  duration_ms?: number;
  /**
   * True when the outcome was already recorded and is returned without running the tool again.
   */
  replayed?: boolean;
}
/**
 * Contract 001 §2.2 error: a stable code, a bounded message, and whether retrying can help.
 */

/**
 * Sent to tool-gateway on rl.tool.invoke. The gateway runs it as a tool_gateway child run whose id derives from parent_run_id and call_id, so a retried call returns the recorded outcome instead of running again.
 */
export interface ToolInvocation {
  call_id: string;
  tool_name: string;
  /**
   * At most 65536 bytes as JSON (REQUEST.INVALID beyond); bulk content goes through rl.artifacts.put.
   */
  parameters: {};
  timeout_ms?: number;
  governance: GovernanceScope;
}
/**
 * Who asks, under which lane, pinned to which policy versions, for which parent run. Carried by every call into a governed choke point.
 */

/**
 * The output of the governed tool transcription.run (ToolInvocationResult.result), read by INTERVIEW_AGENT.
 */
export interface TranscriptionResult {
  /**
   * The tool_gateway child run id: the job's recorded state is that run's log.
   */
  transcription_id: string;
  status: 'completed';
  case_id: string;
  client_session_id: string;
  language: string;
  /**
   * sha256 of the recording artifact, null for inline text.
   */
  source_sha256: string | null;
  segments: TranscriptSegment[];
  text: string;
  word_count: number;
  duration_ms: number;
}
export interface TranscriptSegment {
  index: number;
  speaker: string;
  start_ms: number;
  end_ms: number;
  text: string;
}
