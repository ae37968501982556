import { TOOL_TIMEOUT_STUB, toolFailedStub } from '../domain/notices';
import { truncateToolResponse } from '../domain/truncation';
import type { ToolExecution } from '../ports';
import type { SessionState } from './session-state';

/** The result of running one tool, before the context guard decides whether it may be committed. */
export interface ToolRun {
  readonly content: string;
  readonly status: 'ok' | 'failed';
  readonly error?: string;
  readonly latency: number;
  readonly truncated?: { readonly originalBytes: number; readonly truncatedBytes: number };
}

const TIMED_OUT: unique symbol = Symbol('timed out');

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output) ?? String(output);
  } catch {
    return String(output);
  }
}

async function execute(state: SessionState, name: string, args: Readonly<Record<string, unknown>>, signal: AbortSignal): Promise<ToolExecution> {
  const executor = state.ports.tools;
  if (!executor) return { ok: false, error: 'no tool executor is configured' };
  try {
    return await executor.execute(name, args, { signal, timeoutMs: state.config.toolTimeout });
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Runs one tool under `toolTimeout` (§1): the session itself races the executor against the timer and
 * aborts the executor's signal, so a tool that ignores the signal still cannot hold the turn. Successful
 * output is truncated to `toolResponseMaxBytes` with the contract's notice.
 */
export async function runTool(state: SessionState, name: string, args: Readonly<Record<string, unknown>>): Promise<ToolRun> {
  const { config, ports } = state;
  const controller = new AbortController();
  const started = state.nowMs();
  const timer = ports.sleeper.sleep(config.toolTimeout, controller.signal).then((): typeof TIMED_OUT => TIMED_OUT);
  const outcome = await Promise.race([execute(state, name, args, controller.signal), timer]);
  // Aborting releases the timer when the tool won, and tells the tool to stop when the timer won.
  controller.abort();
  const latency = state.nowMs() - started;

  // A journaled call the session gave up on before answers `timedOut` again on resume: the same outcome, the same log.
  if (outcome === TIMED_OUT || (!outcome.ok && outcome.timedOut)) {
    state.log('warn', 'tool_timeout', `tool ${name} timed out after ${config.toolTimeout} ms`, { tool: name, timeoutMs: config.toolTimeout });
    return { content: TOOL_TIMEOUT_STUB, status: 'failed', error: 'timeout', latency };
  }
  if (!outcome.ok) return { content: toolFailedStub(outcome.error), status: 'failed', error: outcome.error, latency };

  const text = outputText(outcome.output);
  const cut = truncateToolResponse(text, config.toolResponseMaxBytes);
  if (!cut.truncated) return { content: cut.content, status: 'ok', latency };
  state.log('warn', 'tool_response_truncated', `tool ${name} response truncated`, {
    tool: name,
    actualBytes: cut.originalBytes,
    limitBytes: config.toolResponseMaxBytes,
  });
  return { content: cut.content, status: 'ok', latency, truncated: { originalBytes: cut.originalBytes, truncatedBytes: cut.truncatedBytes } };
}
