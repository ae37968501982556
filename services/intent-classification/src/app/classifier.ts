import OpenAI from 'openai';
import { jsonrepair } from 'jsonrepair';
import { classifyIntent, HistoryMessage, IntentType, UserIntent } from '@runledger/task-assistant';

export interface IntentClassifier {
  readonly name: string;
  classify(message: string, history: HistoryMessage[], pendingConfirmation: boolean): Promise<UserIntent>;
}

/** The contract 000 pattern table; offline and deterministic. */
export class RuleClassifier implements IntentClassifier {
  readonly name = 'rules';
  async classify(message: string, history: HistoryMessage[], pendingConfirmation: boolean): Promise<UserIntent> {
    return classifyIntent(message, history, { pendingConfirmation });
  }
}

const INTENTS: IntentType[] = ['CREATE_TASK', 'LIST_TASKS', 'COMPLETE_TASK', 'UPDATE_TASK', 'DELETE_TASK', 'GENERAL_CHAT', 'AMBIGUOUS', 'CONFIRM_YES', 'CONFIRM_NO'];

/**
 * An LLM classifier through the `openai` client (any OpenAI-compatible endpoint). Its answer is parsed
 * (with JSON repair) and checked; anything off-contract falls back to the rule classifier, so a bad model
 * answer never reaches the decision engine.
 */
export class LlmClassifier implements IntentClassifier {
  readonly name = 'llm';
  private readonly client: OpenAI;
  constructor(private readonly opts: { baseURL?: string; apiKey: string; model: string; timeoutMs: number }, private readonly fallback: IntentClassifier = new RuleClassifier()) {
    this.client = new OpenAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, timeout: opts.timeoutMs, maxRetries: 0 });
  }

  async classify(message: string, history: HistoryMessage[], pendingConfirmation: boolean): Promise<UserIntent> {
    const allowed = INTENTS.filter((i) => pendingConfirmation || (i !== 'CONFIRM_YES' && i !== 'CONFIRM_NO'));
    try {
      const completion = await this.client.chat.completions.create({
        model: this.opts.model,
        temperature: 0,
        messages: [
          {
            role: 'system',
            content:
              `Classify the user's message for a task assistant. Answer with JSON only: ` +
              `{"intent_type": one of ${allowed.join('|')}, "confidence": 0..1, "extracted_params": {"description"?, "task_reference"?, "new_description"?, "possible_intents"?}}.`,
          },
          ...history.slice(-6).map((m) => ({ role: m.role, content: m.content }) as const),
          { role: 'user', content: message },
        ],
      });
      const parsed = parseIntent(completion.choices[0]?.message?.content ?? '', allowed);
      return parsed ?? this.fallback.classify(message, history, pendingConfirmation);
    } catch {
      return this.fallback.classify(message, history, pendingConfirmation);
    }
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
  if ((env.INTENT_CLASSIFIER ?? 'rules') !== 'llm') return new RuleClassifier();
  return new LlmClassifier({
    baseURL: env.OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY ?? 'unset',
    model: env.INTENT_MODEL ?? 'gpt-4o-mini',
    timeoutMs: Number(env.INTENT_TIMEOUT_MS ?? 5000),
  });
}
