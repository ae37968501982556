/* eslint-disable */
// Generated from proto-contracts/schemas/sessions/ by scripts/generate-contracts.js. Do not edit by hand.

/**
 * Sent by a caller on rl.caller.<identity>.sessions.get: a session's status, result and accounting, folded from its run's events.
 */
export interface SessionGetRequest {
  run_id: string;
}

/**
 * The answer of rl.caller.<identity>.sessions.start and sessions.get: the session's run, its status and, once terminal, the contract-002 AIAgentResult whose accounting is folded from the run's recorded events.
 */
export interface SessionReply {
  run_id: string;
  agent?: string;
  profile_version?: string;
  status: 'running' | 'completed' | 'failed' | 'denied' | 'cancelled';
  result?: SessionAgentResult;
  usage?: SessionUsageTotals;
  error?: RunError;
}
/**
 * Contract 002 AIAgentResult.
 */
export interface SessionAgentResult {
  success: boolean;
  finalReport?: {};
  error?: {
    kind: string;
    message: string;
  };
  conversation: {}[];
  accounting: {}[];
}
export interface SessionUsageTotals {
  llmRequests: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  costUsd: number;
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
 * The one form of a case id a request may name for a new artifact, run or session (libs/contracts CASE_ID): a letter or digit, then letters, digits, . _ : or - (at most 128). Filters and recorded events keep a plain string: runs of an earlier release with other case ids stay readable.
 */
export type CaseId = string;

/**
 * Sent by a caller on rl.caller.<identity>.sessions.start: run one contract-002 agent session of a registered agent profile as an `agent` run. The run id derives from request_id (or is run_id), so a repeated request answers the same session instead of starting another.
 */
export interface SessionStartRequest {
  /**
   * The agent profile id (agents/<id>.json).
   */
  agent: string;
  /**
   * A published version of the profile; default: the current one.
   */
  version?: string;
  prompt: string;
  request_id?: string;
  run_id?: string;
  /**
   * Set when a session starts another one (a sub-agent tool call); delegation depth and cycles are checked from the recorded ancestry.
   */
  parent_run_id?: string;
  case_id?: CaseId;
  /**
   * Without control characters (C0, DEL, C1): an operator types it back to erase its data.
   */
  user_id?: string;
  correlation_id?: string;
}

/**
 * The answer of rl.tool.list (request body: {}): every tool the gateway can run, with the JSON Schema its input is validated against. MCP tools are named `<server>__<tool>`.
 */
export interface ToolListReply {
  tools: ToolDescriptor[];
}
export interface ToolDescriptor {
  name: string;
  description?: string;
  input_schema: {};
  /**
   * `builtin`, or the MCP server's name.
   */
  source: string;
  queue?: string;
}
