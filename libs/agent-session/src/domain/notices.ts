/**
 * Every text the session shows the model on its own initiative. Several are fixed by contract 002 and
 * tests compare them byte for byte, so they live in one place.
 */

/** §2 Empty or Invalid LLM Responses: the ephemeral retry notice, verbatim. */
export const EMPTY_RESPONSE_NOTICE =
  'System notice: plain text responses without tool calls are ignored. Use final_report to provide your answer.';

/** §1 toolTimeout and §6 Failed tools: `(tool failed: <reason>)`. */
export function toolFailedStub(reason: string): string {
  return `(tool failed: ${reason})`;
}

export const TOOL_TIMEOUT_STUB = toolFailedStub('timeout');

/** §2 Tool Overflow Handling: the deterministic stub for a dropped output. */
export const CONTEXT_BUDGET_STUB = toolFailedStub('context window budget exceeded');

/** §1 toolResponseMaxBytes: prepended to a truncated tool response. */
export function truncationNotice(originalBytes: number, truncatedBytes: number): string {
  return `[TRUNCATED] Original size ${originalBytes} bytes; truncated to ${truncatedBytes} bytes.`;
}

export function excessToolCallStub(limit: number): string {
  return toolFailedStub(`too many tool calls in one turn; at most ${limit} are executed per turn, this call was dropped. Request it again in a later turn if still needed`);
}

export function unparsableArgumentsStub(detail: string): string {
  return toolFailedStub(`the arguments are not valid JSON (${detail}); the call was not executed. Retry with a valid JSON object`);
}

export function unavailableToolStub(name: string, allowed: readonly string[]): string {
  return toolFailedStub(`tool '${name}' is not available in this turn; allowed: ${allowed.join(', ') || 'none'}`);
}

export function invalidResponseNotice(detail: string): string {
  return `System notice: the previous response could not be used (${detail}). Answer again using the available tools.`;
}

export type ForcedFinalReason = 'context' | 'max_turns' | 'final_report_failed';

/** Injected (ephemerally) on a forced final turn: only the final report may follow. */
export function finalTurnInstruction(reason: ForcedFinalReason, finalReportHow: string): string {
  const why =
    reason === 'context'
      ? 'The context window budget is exhausted.'
      : reason === 'final_report_failed'
        ? 'Your final report was rejected; this is your last chance to provide it.'
        : 'This is the last turn.';
  return `System notice: ${why} No more tools can be run. Using only the information already gathered, provide your final answer now ${finalReportHow}.`;
}
