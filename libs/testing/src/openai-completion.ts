import type { ChatCompletionCreateParams } from 'openai/resources/chat/completions';

/** The request body the stub received (what the client sent, parsed from JSON). */
export type ChatRequestBody = ChatCompletionCreateParams & Record<string, unknown>;

/** A tool call the stubbed model "decides" to make. */
export interface StubToolCall {
  /** Defaults to `call_<requestIndex>_<position>`. */
  id?: string;
  name: string;
  /** JSON text, exactly as a model would emit it (may be deliberately malformed in tests). */
  arguments: string;
}

/** A successful completion; the stub wraps it into a full `chat.completion` object. */
export interface StubCompletion {
  content?: string | null;
  tool_calls?: StubToolCall[];
  /** Defaults to 'tool_calls' when tool_calls are given, else 'stop'. */
  finish_reason?: 'stop' | 'length' | 'tool_calls' | 'content_filter' | (string & {});
  /** Defaults to a rough estimate (4 characters per token) so cost accounting sees non-zero numbers. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number };
  /** Exposed as both `reasoning` (OpenRouter style) and `reasoning_content` (DeepSeek/vLLM style). */
  reasoning?: string;
  /** Defaults to the requested model. */
  model?: string;
  /** Wait this long before answering, to simulate a slow provider. */
  delayMs?: number;
}

/** An HTTP error answer in OpenAI's error format. */
export interface StubError {
  status: number;
  error: { message: string; type?: string; code?: string | null; param?: string | null };
  /** e.g. `{ 'retry-after': '1' }` on a 429. */
  headers?: Record<string, string>;
  delayMs?: number;
}

/** What a stub handler returns for one request. */
export type StubReply = StubCompletion | StubError;

export function isStubError(reply: StubReply): reply is StubError {
  return typeof (reply as StubError).status === 'number' && typeof (reply as StubError).error === 'object';
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function usageOf(spec: StubCompletion, body: ChatRequestBody) {
  const completionText = (spec.content ?? '') + (spec.tool_calls ?? []).map((t) => t.name + t.arguments).join('');
  const prompt = spec.usage?.prompt_tokens ?? estimateTokens(JSON.stringify(body.messages ?? []));
  const completion = spec.usage?.completion_tokens ?? estimateTokens(completionText);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: spec.usage?.total_tokens ?? prompt + completion };
}

function toolCallsOf(spec: StubCompletion, index: number) {
  return (spec.tool_calls ?? []).map((t, i) => ({
    id: t.id ?? `call_${index}_${i}`,
    type: 'function' as const,
    function: { name: t.name, arguments: t.arguments },
  }));
}

function finishReasonOf(spec: StubCompletion): string {
  return spec.finish_reason ?? (spec.tool_calls?.length ? 'tool_calls' : 'stop');
}

function header(spec: StubCompletion, body: ChatRequestBody, index: number) {
  return {
    id: `chatcmpl-stub-${index}`,
    created: Math.floor(Date.now() / 1000),
    model: spec.model ?? (typeof body.model === 'string' ? body.model : 'stub-model'),
    system_fingerprint: 'runledger-stub',
  };
}

/** Builds a non-streaming `chat.completion` response body. */
export function buildCompletion(spec: StubCompletion, body: ChatRequestBody, index: number): Record<string, unknown> {
  const toolCalls = toolCallsOf(spec, index);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: spec.content ?? null,
    refusal: null,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(spec.reasoning !== undefined ? { reasoning: spec.reasoning, reasoning_content: spec.reasoning } : {}),
  };
  return {
    ...header(spec, body, index),
    object: 'chat.completion',
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(spec) }],
    usage: usageOf(spec, body),
  };
}

/**
 * Builds the `chat.completion.chunk` sequence for `stream: true`, split the way real
 * providers split it (role first, content in pieces, tool-call name before arguments)
 * so client-side accumulation code is exercised.
 */
export function buildChunks(spec: StubCompletion, body: ChatRequestBody, index: number): Record<string, unknown>[] {
  const head = { ...header(spec, body, index), object: 'chat.completion.chunk' };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks: Record<string, unknown>[] = [chunk({ role: 'assistant', content: '' })];
  if (spec.reasoning) chunks.push(chunk({ reasoning: spec.reasoning, reasoning_content: spec.reasoning }));
  for (const piece of (spec.content ?? '').match(/\S+\s*|\s+/g) ?? []) chunks.push(chunk({ content: piece }));
  toolCallsOf(spec, index).forEach((call, i) => {
    chunks.push(chunk({ tool_calls: [{ index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    chunks.push(chunk({ tool_calls: [{ index: i, function: { arguments: call.function.arguments } }] }));
  });
  chunks.push(chunk({}, finishReasonOf(spec)));
  const streamOptions = body.stream_options as { include_usage?: boolean } | undefined | null;
  if (streamOptions?.include_usage) chunks.push({ ...head, choices: [], usage: usageOf(spec, body) });
  return chunks;
}
