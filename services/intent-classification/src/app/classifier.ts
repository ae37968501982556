import { OpenAiChatModel, type Model } from '@runledger/agent-session';
import type { IntentModelCall } from '@runledger/contracts';
import { jsonrepair } from 'jsonrepair';
import { classifyIntent, HistoryMessage, IntentType, UserIntent } from '@runledger/task-assistant';
import { settingNumber, settingText, truncateChars } from '@runledger/kernel';

export interface IntentClassifier {
  readonly name: string;
  classify(message: string, history: HistoryMessage[], pendingConfirmation: boolean): Promise<UserIntent & { model_call?: IntentModelCall }>;
}

/** The contract 000 pattern table; offline and deterministic. */
export class RuleClassifier implements IntentClassifier {
  readonly name = 'rules';
  async classify(message: string, history: HistoryMessage[], pendingConfirmation: boolean): Promise<UserIntent> {
    return classifyIntent(message, history, { pendingConfirmation });
  }
}

const INTENTS: IntentType[] = ['CREATE_TASK', 'LIST_TASKS', 'COMPLETE_TASK', 'UPDATE_TASK', 'DELETE_TASK', 'GENERAL_CHAT', 'AMBIGUOUS', 'CONFIRM_YES', 'CONFIRM_NO'];

/** An intent with, for the LLM classifier, the record of its model call (recorded by decision with the turn). */
export type ClassifiedIntent = UserIntent & { model_call?: IntentModelCall };

/**
 * An LLM classifier on the same Model port agent sessions use (agent-session's OpenAiChatModel: the `openai`
 * client against any OpenAI-compatible endpoint). Its answer is parsed (with JSON repair) and checked; anything
 * off-contract falls back to the rule classifier, so a bad model answer never reaches the decision engine. Every
 * answer carries the call's record, which says when the rules answered instead and why.
 */
export class LlmClassifier implements IntentClassifier {
  readonly name = 'llm';
  private readonly model: Model;
  constructor(private readonly opts: { baseURL?: string; apiKey: string; model: string; timeoutMs: number }, private readonly fallback: IntentClassifier = new RuleClassifier()) {
    this.model = new OpenAiChatModel({ apiKey: opts.apiKey, ...(opts.baseURL ? { baseURL: opts.baseURL } : {}), timeoutMs: opts.timeoutMs });
  }

  async classify(message: string, history: HistoryMessage[], pendingConfirmation: boolean): Promise<ClassifiedIntent> {
    const allowed = INTENTS.filter((i) => pendingConfirmation || (i !== 'CONFIRM_YES' && i !== 'CONFIRM_NO'));
    const started = Date.now();
    const result = await this.model.call({
      target: { provider: 'intent', model: this.opts.model, params: { temperature: 0, maxOutputTokens: 512 }, contextWindow: 131_072 },
      tools: [],
      toolChoice: 'auto',
      messages: [
        {
          role: 'system',
          content:
            `Classify the user's message for a task assistant. Answer with JSON only: ` +
            `{"intent_type": one of ${allowed.join('|')}, "confidence": 0..1, "extracted_params": {"description"?, "task_reference"?, "new_description"?, "possible_intents"?}}.`,
        },
        ...history.slice(-6).map((m) => ({ role: m.role, content: m.content })),
        { role: 'user', content: message },
      ],
    }).catch((e: unknown) => ({ ok: false as const, error: { kind: 'model' as const, message: e instanceof Error ? e.message : String(e) } }));
    const base = { provider: 'intent', model: this.opts.model, latency_ms: Date.now() - started };
    if (!result.ok) {
      const rules = await this.fallback.classify(message, history, pendingConfirmation);
      return { ...rules, model_call: { ...base, status: 'failed', error: truncateChars(`${result.error.kind}: ${result.error.message}`, 300), fell_back: true, fallback_reason: `model ${result.error.kind} error` } };
    }
    const { usage } = result.response;
    const call = { ...base, status: 'ok' as const, tokens: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, totalTokens: usage.totalTokens } };
    const parsed = parseIntent(result.response.content ?? '', allowed);
    if (parsed) return { ...parsed, model_call: { ...call, fell_back: false } };
    const rules = await this.fallback.classify(message, history, pendingConfirmation);
    return { ...rules, model_call: { ...call, fell_back: true, fallback_reason: 'off-contract answer' } };
  }
}

function parseIntent(text: string, allowed: IntentType[]): UserIntent | null {
  const start = text.indexOf('{');
  if (start < 0) return null;
  let value: unknown;
  try {
    value = JSON.parse(jsonrepair(text.slice(start)));
  } catch {
    return null;
  }
  const v = value as Partial<UserIntent>;
  if (!v || !allowed.includes(v.intent_type as IntentType)) return null;
  const confidence = typeof v.confidence === 'number' ? Math.max(0, Math.min(1, v.confidence)) : null;
  const params = v.extracted_params && typeof v.extracted_params === 'object' ? v.extracted_params : null;
  return { intent_type: v.intent_type as IntentType, confidence, extracted_params: params };
}

export function classifierFromEnv(env: NodeJS.ProcessEnv = process.env): IntentClassifier {
  if (settingText('INTENT_CLASSIFIER', env) !== 'llm') return new RuleClassifier();
  return new LlmClassifier({
    baseURL: settingText('OPENAI_BASE_URL', env),
    apiKey: settingText('OPENAI_API_KEY', env) ?? 'unset',
    model: settingText('INTENT_MODEL', env),
    timeoutMs: settingNumber('INTENT_TIMEOUT_MS', env),
  });
}
