/**
 * The session's data vocabulary (contract 002 §2, §4, §5, §6): messages, tool calls, accounting entries,
 * final reports and the result every session returns. Plain data so it can be recorded as log events.
 */

/** A tool call exactly as the model emitted it; `arguments` is raw text and may be malformed. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export type ConversationMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant';
      readonly content: string | null;
      readonly toolCalls?: readonly ToolCall[];
      /** Kept so a reasoning-only turn carries its thinking into the next request (§2). */
      readonly reasoning?: string;
    }
  | { readonly role: 'tool'; readonly toolCallId: string; readonly name: string; readonly content: string };

/** Provider-reported usage, normalised so `inputTokens` excludes cache reads (§2 currentCtxTokens). */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens?: number;
  readonly totalTokens: number;
}

/** Multi-agent tracing fields copied onto every accounting entry (§4). Minted by the caller, never here. */
export interface TraceFields {
  readonly agentId?: string;
  readonly callPath?: string;
  readonly txnId?: string;
  readonly parentTxnId?: string;
  readonly originTxnId?: string;
}

export interface LlmAccountingEntry extends TraceFields {
  readonly type: 'llm';
  readonly provider: string;
  readonly model: string;
  readonly status: 'ok' | 'failed';
  readonly latency: number;
  readonly tokens: TokenUsage;
  readonly timestamp: number;
  readonly error?: string;
  /** The classified error kind of a failed request (auth, rate_limit, …). */
  readonly errorKind?: ModelErrorKind | 'empty_response';
  readonly costUsd?: number;
  readonly actualProvider?: string;
  readonly actualModel?: string;
  readonly stopReason?: string;
}

export interface ToolAccountingEntry extends TraceFields {
  readonly type: 'tool';
  readonly mcpServer: string;
  readonly command: string;
  readonly status: 'ok' | 'failed';
  readonly latency: number;
  readonly timestamp: number;
  readonly charactersIn: number;
  readonly charactersOut: number;
  readonly error?: string;
  /** `xml` when the call arrived through the XML transport (§11). */
  readonly source?: 'native' | 'xml';
  /** Set when the context guard replaced the output (§2 Tool Overflow Handling). */
  readonly originalTokens?: number;
  readonly replacementTokens?: number;
  readonly truncated?: { readonly originalBytes: number; readonly truncatedBytes: number };
}

export type AccountingEntry = LlmAccountingEntry | ToolAccountingEntry;

export type ModelErrorKind = 'auth' | 'quota' | 'rate_limit' | 'network' | 'timeout' | 'model' | 'invalid_response';

/** A failed model call, classified by the adapter; retryability follows from `kind` (§3). */
export interface ModelError {
  readonly kind: ModelErrorKind;
  readonly message: string;
  /** Only for `rate_limit`: what the provider asked for (Retry-After), in ms. */
  readonly retryAfterMs?: number;
  readonly status?: number;
}

/** What a model answered in one call. */
export interface AssistantResponse {
  readonly content: string | null;
  readonly toolCalls: readonly ToolCall[];
  readonly reasoning?: string;
  /** Provider finish reason as given (stop, length, tool_calls, end_turn, …). */
  readonly stopReason?: string;
  readonly usage: TokenUsage;
  readonly actualModel?: string;
  readonly actualProvider?: string;
  readonly costUsd?: number;
}

export type ReportFormat = 'markdown' | 'text' | 'json' | 'slack-block-kit' | 'sub-agent' | (string & {});

/** How the report reached the session; decides `status` (§2: status comes from the source, never the model). */
export type FinalReportSource = 'tool' | 'text-fallback' | 'xml' | 'synthetic';

export interface FinalReport {
  readonly status: 'success' | 'failure';
  readonly format: ReportFormat;
  readonly source: FinalReportSource;
  /** Unix ms when the report was captured. */
  readonly ts: number;
  readonly content?: string;
  readonly content_json?: unknown;
  readonly messages?: readonly unknown[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

/** `invalid_schema`: the output schema does not compile (§2 exit code 5). */
export type SessionErrorKind = 'auth' | 'quota' | 'invalid_config' | 'invalid_schema' | 'internal';

export interface SessionError {
  readonly kind: SessionErrorKind;
  readonly message: string;
}

/** What every session returns, whatever happened (§2 Always Return Output). */
export interface AIAgentResult {
  readonly success: boolean;
  readonly finalReport?: FinalReport;
  readonly error?: SessionError;
  readonly conversation: readonly ConversationMessage[];
  readonly accounting: readonly AccountingEntry[];
}

/** A tool as the model sees it. */
export interface ToolSpec {
  readonly name: string;
  readonly description?: string;
  /** JSON Schema of the arguments object. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Accounting's `mcpServer`; defaults to `local`. */
  readonly mcpServer?: string;
}
