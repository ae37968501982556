import type OpenAI from 'openai';
import { openaiModule } from './openai-module';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { AssistantResponse, ConversationMessage, ToolCall, ToolSpec } from '../domain/types';
import type { Clock, Model, ModelRequest, ModelResult } from '../ports';
import { classifyOpenAiError } from './classify-openai-error';
import { systemClock } from './system-time';

export interface OpenAiChatModelOptions {
  readonly apiKey: string;
  /** Any OpenAI-compatible endpoint (`…/v1`). */
  readonly baseURL?: string;
  /** Per-request timeout in ms; a timed-out request is a `timeout` error, retried on the next target. */
  readonly timeoutMs?: number;
  /** Older compatible servers only know `max_tokens`; OpenAI's reasoning models only `max_completion_tokens`. */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Resolves HTTP-date Retry-After headers. */
  readonly clock?: Clock;
  /** Reuse a configured client (tests, proxies); `maxRetries` must be 0 so the session owns retries. */
  readonly client?: OpenAI;
}

/**
 * Reasoning is kept in the conversation (§2), but providers disagree on accepting it back as a field, so
 * it is replayed only where it is all the assistant said, as content; elsewhere it is not sent.
 */
function toOpenAiMessage(m: ConversationMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'assistant': {
      const toolCalls = (m.toolCalls ?? []).map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
      const content = m.content ?? (toolCalls.length === 0 ? (m.reasoning ?? '') : null);
      return { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    }
    default: {
      const _exhaustive: never = m;
      return _exhaustive;
    }
  }
}

function toOpenAiTool(t: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: t.name, description: t.description ?? '', parameters: t.inputSchema as Record<string, unknown> } };
}

function toResponse(completion: ChatCompletion): AssistantResponse | undefined {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  if (!message) return undefined;
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' }] : [],
  );
  // Not in OpenAI's types: OpenRouter sends `reasoning`, DeepSeek and vLLM `reasoning_content`.
  const extra = message as unknown as { reasoning?: unknown; reasoning_content?: unknown };
  const reasoning = typeof extra.reasoning === 'string' ? extra.reasoning : typeof extra.reasoning_content === 'string' ? extra.reasoning_content : undefined;
  const prompt = completion.usage?.prompt_tokens ?? 0;
  const output = completion.usage?.completion_tokens ?? 0;
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? undefined;
  return {
    content: message.content ?? null,
    toolCalls,
    ...(reasoning ? { reasoning } : {}),
    ...(choice.finish_reason ? { stopReason: choice.finish_reason } : {}),
    // OpenAI counts cache reads inside prompt_tokens; the session's ctx formula adds them separately.
    usage: {
      inputTokens: prompt - (cached ?? 0),
      outputTokens: output,
      ...(cached !== undefined ? { cachedTokens: cached } : {}),
      totalTokens: completion.usage?.total_tokens ?? prompt + output,
    },
    ...(completion.model ? { actualModel: completion.model } : {}),
  };
}

/** The `Model` port over the `openai` v6 client's Chat Completions API. Never rejects: errors are classified. */
export class OpenAiChatModel implements Model {
  private client?: OpenAI;
  private readonly clock: Clock;

  constructor(private readonly options: OpenAiChatModelOptions) {
    this.clock = options.clock ?? systemClock;
    this.client = options.client;
  }

  /** The client, made at the first call (the `openai` module is loaded only then). */
  private openai(): OpenAI {
    const o = this.options;
    this.client ??= new (openaiModule().default)({
      apiKey: o.apiKey,
      ...(o.baseURL ? { baseURL: o.baseURL } : {}),
      // The session does retries, provider cycling and backoff itself (§3).
      maxRetries: 0,
      ...(o.timeoutMs ? { timeout: o.timeoutMs } : {}),
    });
    return this.client;
  }

  /** The request body for a session request; exposed for tests of parameter passing. */
  buildBody(request: ModelRequest): ChatCompletionCreateParamsNonStreaming {
    const p = request.target.params;
    const body: ChatCompletionCreateParamsNonStreaming & Record<string, unknown> = {
      model: request.target.model,
      messages: request.messages.map(toOpenAiMessage),
      [this.options.maxTokensField ?? 'max_completion_tokens']: p.maxOutputTokens,
      ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
      ...(p.topP !== undefined ? { top_p: p.topP } : {}),
      // Non-standard, understood by vLLM, OpenRouter and llama.cpp servers.
      ...(p.repeatPenalty !== undefined ? { repetition_penalty: p.repeatPenalty } : {}),
      ...(p.reasoningEffort !== undefined ? { reasoning_effort: p.reasoningEffort as ChatCompletionCreateParamsNonStreaming['reasoning_effort'] } : {}),
    };
    if (request.tools.length > 0) {
      body.tools = request.tools.map(toOpenAiTool);
      body.tool_choice = request.toolChoice;
    }
    return body;
  }

  async call(request: ModelRequest): Promise<ModelResult> {
    // Our own deadline, armed before the client's: the client recognises its timeout by the abort error's
    // name, which does not survive every runtime (jest's realms), and a timeout must never read as network.
    const controller = new AbortController();
    let timedOut = false;
    const timeoutMs = this.options.timeoutMs;
    const timer = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs)
      : undefined;
    const forward = () => controller.abort();
    request.signal?.addEventListener('abort', forward, { once: true });
    try {
      const completion = await this.openai().chat.completions.create(this.buildBody(request), { signal: controller.signal });
      const response = toResponse(completion);
      if (!response) return { ok: false, error: { kind: 'invalid_response', message: 'the completion has no message' } };
      return { ok: true, response };
    } catch (e) {
      if (timedOut) return { ok: false, error: { kind: 'timeout', message: `no answer within ${timeoutMs} ms` } };
      return { ok: false, error: classifyOpenAiError(e, this.clock.now().getTime()) };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', forward);
    }
  }
}
