import { freezeDeep, type DeepReadonly } from '../shared/freeze';
import { injectAbilities, type AbilityInjectionError, type InjectAbilitiesInput } from './inject-abilities';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface PreparePromptInput extends InjectAbilitiesInput {
  /** Earlier turns of the conversation; the system message is always ours. */
  readonly history?: readonly { readonly role: 'user' | 'assistant'; readonly content: string }[];
}

export type PreparedPrompt = DeepReadonly<{
  ok: true;
  agentId: string;
  /** Ready for a provider call: system (abilities + profile prompt), history, then the task. */
  messages: ChatMessage[];
  abilities: { included: string[]; truncated: boolean; omitted: string[]; tokensUsed: number };
  warnings: string[];
}>;

/**
 * The prompt-preparation phase, and the only place abilities are injected
 * (INV-AGT-ABL-001): injection happens here, before any provider call, and the
 * result is deeply frozen so nothing can be added once it is handed to a provider.
 */
export function preparePrompt(input: PreparePromptInput): PreparedPrompt | AbilityInjectionError {
  const injection = injectAbilities(input);
  if (!injection.ok) return injection;
  const messages: ChatMessage[] = [
    { role: 'system', content: injection.systemPrompt },
    ...(input.history ?? []).map((m) => ({ role: m.role, content: m.content })),
    { role: 'user', content: input.task },
  ];
  return freezeDeep({
    ok: true as const,
    agentId: input.profile.id,
    messages,
    abilities: {
      included: [...injection.included],
      truncated: injection.truncated,
      omitted: [...injection.omitted],
      tokensUsed: injection.tokensUsed,
    },
    warnings: [...injection.warnings],
  });
}
