import type { ReportFormat, ToolSpec, TraceFields } from './types';

/** §11: how tools and the final report travel between the model and the session. */
export type ToolTransport = 'native' | 'xml-final' | 'xml';

/** Sampling and reasoning settings passed to the provider on every request (§1 Provider Configuration). */
export interface ModelParams {
  readonly temperature?: number;
  readonly topP?: number;
  readonly repeatPenalty?: number;
  readonly maxOutputTokens?: number;
  readonly reasoningEffort?: string;
  readonly extendedThinking?: boolean;
}

/** One provider/model pair attempts cycle through; `params` override the session-level defaults. */
export interface ProviderTarget {
  readonly provider: string;
  readonly model: string;
  readonly params?: ModelParams;
  readonly contextWindow?: number;
}

/** A target with every setting resolved: what a request to it will carry. */
export interface ResolvedTarget {
  readonly provider: string;
  readonly model: string;
  readonly params: ModelParams & { readonly maxOutputTokens: number };
  readonly contextWindow: number;
}

/** The §1 tunables, as a session takes them and as a configuration file's defaults state them. */
export interface SessionTunables extends ModelParams {
  readonly systemPrompt?: string;
  readonly maxTurns?: number;
  readonly maxToolCallsPerTurn?: number;
  readonly maxRetries?: number;
  readonly contextWindow?: number;
  readonly contextWindowBufferTokens?: number;
  readonly toolResponseMaxBytes?: number;
  /** Milliseconds before a tool execution is aborted. */
  readonly toolTimeout?: number;
  /** JSON Schema `content_json` must satisfy when the format is `json`. */
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly toolTransport?: ToolTransport;
}

export interface SessionConfigInput extends SessionTunables {
  readonly targets: readonly ProviderTarget[];
  readonly expectedOutputFormat?: ReportFormat;
  readonly tools?: readonly ToolSpec[];
  /** Expose the `agent__batch` meta-tool. */
  readonly batchTool?: boolean;
  readonly trace?: TraceFields;
}

export interface SessionConfig {
  readonly targets: readonly ResolvedTarget[];
  readonly systemPrompt: string;
  readonly maxTurns: number;
  readonly maxToolCallsPerTurn: number;
  readonly maxRetries: number;
  readonly contextWindowBufferTokens: number;
  readonly toolResponseMaxBytes: number;
  readonly toolTimeout: number;
  readonly expectedOutputFormat: ReportFormat;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly tools: readonly ToolSpec[];
  readonly batchTool: boolean;
  readonly toolTransport: ToolTransport;
  readonly trace: TraceFields;
}

export const FINAL_REPORT_TOOL = 'agent__final_report';
export const BATCH_TOOL = 'agent__batch';
const RESERVED_TOOLS = new Set([FINAL_REPORT_TOOL, BATCH_TOOL, 'agent__progress_report']);

export const SESSION_DEFAULTS = {
  maxTurns: 10,
  maxToolCallsPerTurn: 10,
  maxRetries: 3,
  contextWindow: 131_072,
  contextWindowBufferTokens: 256,
  maxOutputTokens: 4096,
  toolResponseMaxBytes: 12_288,
  toolTimeout: 60_000,
  expectedOutputFormat: 'markdown',
  // §11: xml-final is the contract's default transport.
  toolTransport: 'xml-final',
} as const;

const TRANSPORTS: readonly ToolTransport[] = ['native', 'xml-final', 'xml'];

export type ResolveConfigResult = { ok: true; config: SessionConfig } | { ok: false; errors: string[] };

function positiveInt(errors: string[], name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) errors.push(`${name} must be a positive integer (got ${String(value)})`);
  return v;
}

function nonNegativeInt(errors: string[], name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) errors.push(`${name} must be a non-negative integer (got ${String(value)})`);
  return v;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Session defaults, overridden per target (§1: "Session-level defaults can be overridden per-provider or per-model"). */
function resolveTarget(input: SessionConfigInput, target: ProviderTarget, errors: string[], index: number): ResolvedTarget {
  if (!target.provider || !target.model) errors.push(`targets[${index}] needs a provider and a model`);
  const sessionParams: ModelParams = definedOnly({
    temperature: input.temperature,
    topP: input.topP,
    repeatPenalty: input.repeatPenalty,
    maxOutputTokens: input.maxOutputTokens,
    reasoningEffort: input.reasoningEffort,
    extendedThinking: input.extendedThinking,
  });
  const params = { ...sessionParams, ...definedOnly(target.params ?? {}) };
  const maxOutputTokens = positiveInt(errors, `targets[${index}].maxOutputTokens`, params.maxOutputTokens, SESSION_DEFAULTS.maxOutputTokens);
  const contextWindow = positiveInt(errors, `targets[${index}].contextWindow`, target.contextWindow ?? input.contextWindow, SESSION_DEFAULTS.contextWindow);
  return { provider: target.provider, model: target.model, params: { ...params, maxOutputTokens }, contextWindow };
}

/** Applies defaults and checks the settings; a session never starts on a configuration it cannot honour. */
export function resolveSessionConfig(input: SessionConfigInput): ResolveConfigResult {
  const errors: string[] = [];
  if (!Array.isArray(input.targets) || input.targets.length === 0) errors.push('at least one provider/model target is required');
  const targets = (input.targets ?? []).map((t, i) => resolveTarget(input, t, errors, i));
  const toolTransport = input.toolTransport ?? SESSION_DEFAULTS.toolTransport;
  if (!TRANSPORTS.includes(toolTransport)) errors.push(`toolTransport must be one of ${TRANSPORTS.join(', ')}`);
  const tools = input.tools ?? [];
  const seen = new Set<string>();
  for (const tool of tools) {
    if (RESERVED_TOOLS.has(tool.name)) errors.push(`tool name '${tool.name}' is reserved by the session`);
    if (seen.has(tool.name)) errors.push(`tool '${tool.name}' is defined twice`);
    seen.add(tool.name);
  }
  const config: SessionConfig = {
    targets,
    systemPrompt: input.systemPrompt ?? '',
    maxTurns: positiveInt(errors, 'maxTurns', input.maxTurns, SESSION_DEFAULTS.maxTurns),
    maxToolCallsPerTurn: positiveInt(errors, 'maxToolCallsPerTurn', input.maxToolCallsPerTurn, SESSION_DEFAULTS.maxToolCallsPerTurn),
    maxRetries: positiveInt(errors, 'maxRetries', input.maxRetries, SESSION_DEFAULTS.maxRetries),
    contextWindowBufferTokens: nonNegativeInt(errors, 'contextWindowBufferTokens', input.contextWindowBufferTokens, SESSION_DEFAULTS.contextWindowBufferTokens),
    toolResponseMaxBytes: positiveInt(errors, 'toolResponseMaxBytes', input.toolResponseMaxBytes, SESSION_DEFAULTS.toolResponseMaxBytes),
    toolTimeout: positiveInt(errors, 'toolTimeout', input.toolTimeout, SESSION_DEFAULTS.toolTimeout),
    expectedOutputFormat: input.expectedOutputFormat ?? SESSION_DEFAULTS.expectedOutputFormat,
    ...(input.outputSchema === undefined ? {} : { outputSchema: input.outputSchema }),
    tools,
    batchTool: input.batchTool ?? false,
    toolTransport,
    trace: input.trace ?? {},
  };
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config };
}

/** The projection ceiling for one target (§2 Guard Projection). */
export function contextLimitOf(target: ResolvedTarget, bufferTokens: number): number {
  return target.contextWindow - bufferTokens - target.params.maxOutputTokens;
}
