import type { AgentConfig } from '../domain/config/agent-config';
import type { Clock, Model } from '../ports';
import { OpenAiChatModel } from './openai-chat-model';

const OPENAI_TYPES = new Set(['openai', 'openai-compatible']);

/** One adapter per configured provider; unknown provider types are a configuration error. */
export function modelsFromConfig(config: AgentConfig, clock?: Clock): { ok: true; models: Record<string, Model> } | { ok: false; errors: string[] } {
  const models: Record<string, Model> = {};
  const errors: string[] = [];
  for (const [name, provider] of Object.entries(config.providers)) {
    const type = provider.type ?? 'openai';
    if (!OPENAI_TYPES.has(type)) {
      errors.push(`provider '${name}' has unsupported type '${type}' (supported: ${[...OPENAI_TYPES].join(', ')})`);
      continue;
    }
    models[name] = new OpenAiChatModel({
      apiKey: provider.apiKey ?? '',
      ...(provider.baseUrl ? { baseURL: provider.baseUrl } : {}),
      ...(provider.timeoutMs ? { timeoutMs: provider.timeoutMs } : {}),
      ...(provider.maxTokensField ? { maxTokensField: provider.maxTokensField } : {}),
      ...(clock ? { clock } : {}),
    });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, models };
}
