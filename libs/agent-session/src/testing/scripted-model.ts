import type { AssistantResponse, ModelError, TokenUsage, ToolCall } from '../domain/types';
import type { Model, ModelRequest, ModelResult } from '../ports';

/** One scripted answer: a fixed result, or a function of the request. */
export type ScriptStep = ModelResult | ((request: ModelRequest, index: number) => ModelResult | Promise<ModelResult>);

const DEFAULT_USAGE: TokenUsage = { inputTokens: 100, outputTokens: 20, totalTokens: 120 };

/**
 * A deterministic model for tests: answers the N-th call with the N-th step and records every request.
 * Running past the script is a test bug, reported as an `invalid_response` error so the session still returns.
 */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  private readonly steps: ScriptStep[];

  constructor(steps: readonly ScriptStep[], private readonly latencyMs = 0, private readonly advance?: (ms: number) => void) {
    this.steps = [...steps];
  }

  async call(request: ModelRequest): Promise<ModelResult> {
    const index = this.requests.length;
    // Copy: the session keeps appending to its conversation after the call.
    this.requests.push({ ...request, messages: [...request.messages] });
    if (this.latencyMs > 0) this.advance?.(this.latencyMs);
    const step = this.steps[index];
    if (step === undefined) return { ok: false, error: { kind: 'invalid_response', message: `script exhausted at call ${index + 1}` } };
    return typeof step === 'function' ? step(request, index) : step;
  }
}

let callCounter = 0;

/** Builders for scripted answers. */
export const reply = {
  response(partial: Partial<AssistantResponse>): ModelResult {
    return { ok: true, response: { content: null, toolCalls: [], usage: DEFAULT_USAGE, stopReason: 'stop', ...partial } };
  },
  text(content: string, extra: Partial<AssistantResponse> = {}): ModelResult {
    return reply.response({ content, ...extra });
  },
  empty(): ModelResult {
    return reply.response({});
  },
  reasoning(reasoning: string): ModelResult {
    return reply.response({ reasoning });
  },
  tools(...calls: Array<{ name: string; args: unknown; id?: string }>): ModelResult {
    const toolCalls: ToolCall[] = calls.map((c) => ({
      id: c.id ?? `call_${++callCounter}`,
      name: c.name,
      arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args),
    }));
    return reply.response({ toolCalls, stopReason: 'tool_calls' });
  },
  finalReport(content: string, extra: Record<string, unknown> = {}): ModelResult {
    return reply.tools({ name: 'agent__final_report', args: { format: 'markdown', report_content: content, ...extra } });
  },
  error(kind: ModelError['kind'], message: string = kind, extra: Partial<ModelError> = {}): ModelResult {
    return { ok: false, error: { kind, message, ...extra } };
  },
};
