import { truncateChars } from '@runledger/kernel';
import type { ToolExecution } from '../ports';

/** A session tool call's outcome as a journal records it (ToolCallRecorded's status, result and error). */
export interface RecordedToolOutcome {
  readonly status: 'ok' | 'failed' | 'timeout' | 'denied';
  readonly result?: unknown;
  readonly error?: { readonly error_code: string; readonly message: string; readonly retryable: boolean };
}

/** A failure text that names no code of its own (an executor's exception): recorded under this code, read back as the text. */
export const SESSION_TOOL_ERROR = 'SESSION.TOOL_ERROR';
export const SESSION_TOOL_TIMEOUT = 'SESSION.TOOL_TIMEOUT';
/** The contract's bound on a recorded error message (characters). */
const MESSAGE_MAX = 500;
/** A failure the gateway answered reads `CODE.NAME: message` (the session tool executor's form). */
const CODED = /^([A-Z][A-Z0-9_]*\.[A-Z0-9_.]+): ([\s\S]*)$/;

export const TOOL_TIMED_OUT: ToolExecution = { ok: false, error: 'timeout', timedOut: true };

/** What a journal records of a tool's outcome; `executionOf` reads back the same execution the session saw. */
export function recordedOutcomeOf(execution: ToolExecution): RecordedToolOutcome {
  if (execution.ok) return { status: 'ok', ...(execution.output !== undefined ? { result: execution.output } : {}) };
  if (execution.timedOut) return { status: 'timeout', error: { error_code: SESSION_TOOL_TIMEOUT, message: 'The session stopped waiting for the tool (toolTimeout).', retryable: false } };
  const coded = CODED.exec(execution.error);
  // Only a message beyond the contract's bound is cut (then a resumed session reads the cut text).
  const [code, message] = coded ? [coded[1]!, coded[2]!] : [SESSION_TOOL_ERROR, execution.error];
  return { status: 'failed', error: { error_code: code, message: truncateChars(message, MESSAGE_MAX), retryable: false } };
}

/** The execution a recorded outcome stands for. */
export function executionOf(outcome: RecordedToolOutcome): ToolExecution {
  if (outcome.status === 'ok') return { ok: true, output: outcome.result };
  if (outcome.status === 'timeout' && outcome.error?.error_code === SESSION_TOOL_TIMEOUT) return TOOL_TIMED_OUT;
  const e = outcome.error;
  if (!e) return { ok: false, error: outcome.status };
  return { ok: false, error: e.error_code === SESSION_TOOL_ERROR ? e.message : `${e.error_code}: ${e.message}` };
}
