import type { RunError, ToolCallStatus } from './run-events';
import type { RunState } from './run-state';

/** A tool call's outcome as its caller sees it, read from the tool_gateway child run's recorded state. */
export interface ToolCallOutcome {
  status: ToolCallStatus;
  result?: unknown;
  truncated?: boolean;
  error?: RunError;
}

/**
 * The one mapping from a terminal tool_gateway run to the caller's view: the gateway answers with it, and a
 * caller whose reply was lost reads the same answer from the log instead of guessing "failed".
 */
export function toolCallOutcomeOf(state: RunState): ToolCallOutcome {
  const status: ToolCallStatus =
    state.status === 'completed' ? 'ok' : state.status === 'denied' ? 'denied' : state.error?.error_code === 'TOOL.TIMEOUT' ? 'timeout' : 'failed';
  const recorded = (state.result ?? {}) as { output?: unknown; truncated?: boolean };
  return {
    status,
    ...(status === 'ok' ? { result: recorded.output, truncated: Boolean(recorded.truncated) } : {}),
    ...(state.error ? { error: state.error } : {}),
  };
}
