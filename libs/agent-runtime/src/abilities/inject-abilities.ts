import type { AgentProfile } from '../profile/agent-profile';
import { containsPhrase, normalizeText } from '../shared/text';

export interface Ability {
  readonly id: string;
  readonly content: string;
  readonly tags?: readonly string[];
  readonly keywords?: readonly string[];
}

export interface InjectAbilitiesInput {
  readonly profile: Pick<AgentProfile, 'id' | 'systemPrompt' | 'coreAbilities' | 'abilities'>;
  readonly task: string;
  /** The ability catalogue; the profile refers to entries by id. */
  readonly abilities: readonly Ability[];
  /** Budget for the injected ability text (the profile's own prompt is not counted). */
  readonly tokenLimit: number;
  /** Defaults to ~4 characters per token. Pass the provider's tokenizer for exact budgets. */
  readonly estimateTokens?: (text: string) => number;
}

export interface AbilityInjection {
  readonly ok: true;
  /** Injected ability text, then the profile's system prompt. */
  readonly systemPrompt: string;
  /** Ability ids in injection order: core first, then task-matched by relevance. */
  readonly included: readonly string[];
  /** True when task-matched abilities were left out to stay within the budget. */
  readonly truncated: boolean;
  readonly omitted: readonly string[];
  readonly tokensUsed: number;
  readonly warnings: readonly string[];
}

export type AbilityErrorCode = 'ABILITY.INVALID_LIMIT' | 'ABILITY.CORE_MISSING' | 'ABILITY.CORE_OVER_BUDGET';
export interface AbilityInjectionError {
  readonly ok: false;
  readonly code: AbilityErrorCode;
  readonly message: string;
}

export const ABILITY_SEPARATOR = '\n\n';
export const defaultEstimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * Builds the system prompt for one task. Core abilities always come first and
 * are never dropped (INV-AGT-ABL-002): if one is missing from the catalogue or
 * the core set alone exceeds the budget, the result is an error rather than a
 * prompt silently lacking them. Task-matched abilities follow by relevance until
 * the next one would exceed the budget (INV-AGT-ABL-003); the rest are reported
 * as omitted with a warning.
 */
export function injectAbilities(input: InjectAbilitiesInput): AbilityInjection | AbilityInjectionError {
  const { profile, tokenLimit } = input;
  const estimate = input.estimateTokens ?? defaultEstimateTokens;
  if (!Number.isInteger(tokenLimit) || tokenLimit < 0) {
    return { ok: false, code: 'ABILITY.INVALID_LIMIT', message: `tokenLimit must be an integer >= 0, got ${tokenLimit}` };
  }
  const catalogue = new Map(input.abilities.map((a) => [a.id, a]));
  const warnings: string[] = [];

  const coreSet = coreAbilitiesOf(profile, catalogue, estimate);
  if (!coreSet.ok) return coreSet;
  const { core, tokens: coreTokens } = coreSet;
  const chunks = core.map((a) => a.content);
  if (coreTokens > tokenLimit) {
    return {
      ok: false,
      code: 'ABILITY.CORE_OVER_BUDGET',
      message: `core abilities of agent '${profile.id}' need ${coreTokens} tokens, above the limit of ${tokenLimit}`,
    };
  }

  const ranked = rankTaskAbilities(input, catalogue, warnings);
  const included = core.map((a) => a.id);
  const omitted: string[] = [];
  let tokensUsed = coreTokens;
  for (const ability of ranked) {
    if (omitted.length === 0) {
      const next = estimate([...chunks, ability.content].join(ABILITY_SEPARATOR));
      if (next <= tokenLimit) {
        chunks.push(ability.content);
        included.push(ability.id);
        tokensUsed = next;
        continue;
      }
    }
    // Strict priority: once one ability does not fit, less relevant ones do not jump the queue.
    omitted.push(ability.id);
  }
  if (omitted.length > 0) {
    warnings.push(`ability budget of ${tokenLimit} tokens reached; omitted: ${omitted.join(', ')}`);
  }

  const systemPrompt = chunks.length === 0 ? profile.systemPrompt : [...chunks, profile.systemPrompt].join(ABILITY_SEPARATOR);
  return { ok: true, systemPrompt, included, truncated: omitted.length > 0, omitted, tokensUsed, warnings };
}

/**
 * The tokens a profile's core abilities take when injected: the least budget any prompt of that profile needs,
 * since core abilities are never dropped (INV-AGT-ABL-002). A caller that accepts a budget checks it against this
 * up front instead of failing every later injection.
 */
export function coreAbilityTokens(
  profile: Pick<AgentProfile, 'id' | 'coreAbilities'>,
  abilities: readonly Ability[],
  estimateTokens: (text: string) => number = defaultEstimateTokens,
): { ok: true; tokens: number } | AbilityInjectionError {
  const coreSet = coreAbilitiesOf(profile, new Map(abilities.map((a) => [a.id, a])), estimateTokens);
  return coreSet.ok ? { ok: true, tokens: coreSet.tokens } : coreSet;
}

function coreAbilitiesOf(
  profile: Pick<AgentProfile, 'id' | 'coreAbilities'>,
  catalogue: ReadonlyMap<string, Ability>,
  estimate: (text: string) => number,
): { ok: true; core: Ability[]; tokens: number } | AbilityInjectionError {
  const core: Ability[] = [];
  for (const id of profile.coreAbilities) {
    const ability = catalogue.get(id);
    if (ability === undefined) {
      return { ok: false, code: 'ABILITY.CORE_MISSING', message: `core ability '${id}' of agent '${profile.id}' is not in the ability catalogue` };
    }
    if (!core.includes(ability)) core.push(ability);
  }
  return { ok: true, core, tokens: core.length === 0 ? 0 : estimate(core.map((a) => a.content).join(ABILITY_SEPARATOR)) };
}

/** The profile's non-core abilities that match the task, most relevant first, ties in profile order. */
function rankTaskAbilities(input: InjectAbilitiesInput, catalogue: Map<string, Ability>, warnings: string[]): Ability[] {
  const task = normalizeText(input.task);
  const coreIds = new Set(input.profile.coreAbilities);
  const scored: { ability: Ability; relevance: number; order: number }[] = [];
  for (const [order, id] of input.profile.abilities.entries()) {
    if (coreIds.has(id) || scored.some((s) => s.ability.id === id)) continue;
    const ability = catalogue.get(id);
    if (ability === undefined) {
      warnings.push(`ability '${id}' of agent '${input.profile.id}' is not in the ability catalogue`);
      continue;
    }
    const terms = new Set([...(ability.tags ?? []), ...(ability.keywords ?? [])].map(normalizeText));
    const relevance = [...terms].filter((term) => containsPhrase(task, term)).length;
    if (relevance > 0) scored.push({ ability, relevance, order });
  }
  return scored.sort((a, b) => b.relevance - a.relevance || a.order - b.order).map((s) => s.ability);
}
