import type { ModelParams, SessionConfigInput, SessionTunables } from '../session-config';

/** Per-model overrides inside a provider. */
export interface ModelFileConfig extends ModelParams {
  readonly contextWindow?: number;
}

export interface ProviderFileConfig extends ModelParams {
  /** `openai` (default) or `openai-compatible`: both use the Chat Completions adapter. */
  readonly type?: string;
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  readonly contextWindow?: number;
  readonly models?: Readonly<Record<string, ModelFileConfig>>;
}

export interface QueueFileConfig {
  readonly concurrent?: number;
}

/** Tool sources bind to a queue by name (§1 queues, §7 Queue Validation). */
export interface ToolSourceFileConfig {
  readonly queue?: string;
  readonly [key: string]: unknown;
}

/** Session settings shared by every agent run from this configuration. */
export interface DefaultsFileConfig extends SessionTunables {
  /** `provider/model` strings, in cycling order. */
  readonly targets?: readonly string[];
  /** Checked against the report formats when the session input is built. */
  readonly expectedOutputFormat?: string;
}

/** `.ai-agent.json` after merging and expansion. */
export interface AgentConfig {
  readonly providers: Readonly<Record<string, ProviderFileConfig>>;
  readonly mcpServers: Readonly<Record<string, ToolSourceFileConfig>>;
  readonly restTools: Readonly<Record<string, ToolSourceFileConfig>>;
  readonly queues: Readonly<Record<string, QueueFileConfig>>;
  readonly defaults: DefaultsFileConfig;
}

export const DEFAULT_QUEUE = 'default';
export const DEFAULT_QUEUE_CONCURRENCY = 32;

function section(raw: Record<string, unknown>, key: string, errors: string[]): Record<string, never> {
  const value = raw[key];
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push(`${key} must be an object`);
    return {};
  }
  return value as Record<string, never>;
}

/**
 * Shapes the merged file and validates queue bindings (§7): the default queue is added when missing, a
 * tool source without a queue uses it, and a binding to an unknown queue fails startup with a clear error.
 */
export function toAgentConfig(raw: Record<string, unknown>): { ok: true; config: AgentConfig } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const queues: Record<string, QueueFileConfig> = { ...section(raw, 'queues', errors) };
  if (!queues[DEFAULT_QUEUE]) queues[DEFAULT_QUEUE] = { concurrent: DEFAULT_QUEUE_CONCURRENCY };
  for (const [name, q] of Object.entries(queues)) {
    if (q.concurrent !== undefined && (!Number.isInteger(q.concurrent) || q.concurrent < 1)) errors.push(`queues.${name}.concurrent must be a positive integer`);
  }
  const bind = (kind: 'mcpServers' | 'restTools'): Record<string, ToolSourceFileConfig> => {
    const out: Record<string, ToolSourceFileConfig> = {};
    for (const [name, source] of Object.entries(section(raw, kind, errors) as Record<string, ToolSourceFileConfig>)) {
      const queue = source.queue ?? DEFAULT_QUEUE;
      if (!queues[queue]) errors.push(`${kind}.${name}.queue references unknown queue '${queue}' (defined: ${Object.keys(queues).join(', ')})`);
      out[name] = { ...source, queue };
    }
    return out;
  };
  const config: AgentConfig = {
    providers: section(raw, 'providers', errors),
    mcpServers: bind('mcpServers'),
    restTools: bind('restTools'),
    queues,
    defaults: section(raw, 'defaults', errors),
  };
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config };
}

/** `openai/gpt-4o` → provider `openai`, model `gpt-4o` (model names may contain further slashes). */
export function parseTargetRef(ref: string): { provider: string; model: string } | undefined {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) return undefined;
  return { provider: ref.slice(0, slash), model: ref.slice(slash + 1) };
}

function pickParams(src: ModelParams | undefined): ModelParams {
  if (!src) return {};
  const keys = ['temperature', 'topP', 'repeatPenalty', 'maxOutputTokens', 'reasoningEffort', 'extendedThinking'] as const;
  return Object.fromEntries(keys.filter((k) => src[k] !== undefined).map((k) => [k, src[k]])) as ModelParams;
}

/**
 * Builds the session input: defaults give session-level parameters; provider-level, then model-level
 * settings override them per target (§1 Provider Configuration).
 */
export function sessionInputFromConfig(config: AgentConfig, targetRefs?: readonly string[]): { ok: true; input: SessionConfigInput } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const refs = targetRefs ?? config.defaults.targets ?? [];
  if (refs.length === 0) errors.push('no targets: set defaults.targets (e.g. ["openai/gpt-4o-mini"]) or pass --model');
  const targets = refs.flatMap((ref) => {
    const parsed = parseTargetRef(ref);
    if (!parsed) {
      errors.push(`target '${ref}' is not of the form provider/model`);
      return [];
    }
    const provider = config.providers[parsed.provider];
    if (!provider) {
      errors.push(`target '${ref}' names unknown provider '${parsed.provider}'`);
      return [];
    }
    const model = provider.models?.[parsed.model];
    const contextWindow = model?.contextWindow ?? provider.contextWindow;
    return [{ ...parsed, params: { ...pickParams(provider), ...pickParams(model) }, ...(contextWindow !== undefined ? { contextWindow } : {}) }];
  });
  if (errors.length > 0) return { ok: false, errors };
  const { targets: _refs, ...defaults } = config.defaults;
  return { ok: true, input: { ...defaults, targets } };
}
