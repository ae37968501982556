/**
 * The session's I/O, as ports. The loop never touches HTTP, timers, files or the bus itself, so the same
 * code runs in the CLI (OpenAI client, real timers) and in the decision service (tool gateway, log events),
 * and under test with a scripted model and fake time.
 */
import type { Clock } from '@runledger/kernel';
import type { JournalEntry } from './domain/journal-events';
import type { ResolvedTarget } from './domain/session-config';
import type { AccountingEntry, AssistantResponse, ConversationMessage, ModelError, ToolSpec } from './domain/types';

export type { Clock };

/** One model call: the conversation so far, the tools on offer, the target's parameters. */
export interface ModelRequest {
  readonly target: ResolvedTarget;
  readonly messages: readonly ConversationMessage[];
  readonly tools: readonly ToolSpec[];
  /** `auto` whenever XML carries part of the protocol (§11); native may require a tool. */
  readonly toolChoice: 'auto' | 'required';
  readonly signal?: AbortSignal;
}

export type ModelResult = { readonly ok: true; readonly response: AssistantResponse } | { readonly ok: false; readonly error: ModelError };

/** The model port. Adapters classify failures; they resolve, never reject, on provider errors. */
export interface Model {
  call(request: ModelRequest): Promise<ModelResult>;
}

/** A tool's outcome; `timedOut`: the session gave up on the call at its toolTimeout (a journaled call answers that again on resume). */
export type ToolExecution = { readonly ok: true; readonly output: unknown } | { readonly ok: false; readonly error: string; readonly timedOut?: true };

export interface ToolExecutionOptions {
  /** Aborted when the session gives up on the call (timeout); executors should stop work. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** A stable id of this call within its session (journaled sessions): executors pass it on so a repeated call is deduplicated. */
  readonly callId?: string;
}

/** Runs the session's (non-meta) tools; in Runledger this forwards to the tool gateway. */
export interface ToolExecutor {
  execute(name: string, args: Readonly<Record<string, unknown>>, options: ToolExecutionOptions): Promise<ToolExecution>;
}

/** Waits; injected so backoff and timeouts run on fake time in tests. Resolves early when `signal` aborts. */
export interface Sleeper {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Called once per accounting entry, in order, so a service can append it to the log as it happens. */
export interface SessionRecorder {
  record(entry: AccountingEntry): void | Promise<void>;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Operator-facing diagnostics (§8: wording and identifiers are not part of the contract). */
export interface SessionLogEntry {
  readonly level: LogLevel;
  readonly event: string;
  readonly message: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

export interface SessionLogger {
  log(entry: SessionLogEntry): void;
}

export interface SessionPorts {
  readonly model: Model;
  /** Needed when the configuration offers tools; a missing executor fails every tool call. */
  readonly tools?: ToolExecutor;
  readonly clock: Clock;
  readonly sleeper: Sleeper;
  readonly recorder?: SessionRecorder;
  readonly logger?: SessionLogger;
  /** The XML transport's session nonce (§11); ids and randomness come from the caller. Default: random 8 hex. */
  readonly nonce?: () => string;
}

/** A tool call as a journaled runtime records it: the call id names it (and the tool_gateway child run it derives). */
export interface SessionToolCall {
  readonly call_id: string;
  /** 1-based position among the session's tool calls. */
  readonly seq: number;
  readonly tool_name: string;
  readonly parameters: Record<string, unknown>;
}

/**
 * The journaled runtime a durable session runs on (`durableSession`): the run engine in the decision service, a local
 * file store in the CLI. One journal: what it records is what a resumed session is answered from.
 */
export interface SessionRuntime {
  /** A journaled step: `compute` runs once and its output is recorded; a recorded output is returned, never recomputed. */
  step<T>(stepId: string, stepIndex: number, compute: () => Promise<T>): Promise<T>;
  /** Whether a step's output is recorded. */
  isRecorded(stepId: string): boolean;
  /**
   * A journaled tool call: recorded as requested before `execute` runs, with its outcome after; a call whose outcome is
   * recorded is answered from the record. `execute` resolves, never rejects.
   */
  toolCall(call: SessionToolCall, execute: () => Promise<ToolExecution>): Promise<ToolExecution>;
  /** Appends a record of the session (an accounting entry, a note), idempotent by its index; it may travel with the next write. */
  record(entry: Extract<JournalEntry, { kind: 'accounting' | 'note' }>): Promise<void>;
}
