/** §7 Placeholder Expansion. */
export class MissingVariableError extends Error {
  constructor(
    readonly variable: string,
    /** The layer the placeholder came from (its file path), for the operator to find it. */
    readonly origin: string,
    /** Where in that layer: `providers.openai.apiKey`. */
    readonly path: string,
  ) {
    super(`missing variable \${${variable}} at ${path} in config layer ${origin} (not in its .ai-agent.env nor in the environment)`);
    this.name = 'MissingVariableError';
  }
}

export interface ExpansionSources {
  readonly origin: string;
  /** The layer's own `.ai-agent.env`, consulted first. */
  readonly layerEnv: Readonly<Record<string, string>>;
  /** process.env, passed in by the caller. */
  readonly processEnv: Readonly<Record<string, string | undefined>>;
}

const PLACEHOLDER = /\$\{([^}]+)\}/g;
const PARAMETER_PLACEHOLDER = /^parameters\./;

/**
 * Subtrees handed verbatim to somebody else: a child process's environment and request headers are the
 * MCP server's business (§7), so they are passed on unexpanded.
 */
function isProtectedSubtree(path: readonly string[]): boolean {
  return path.length === 3 && path[0] === 'mcpServers' && (path[2] === 'env' || path[2] === 'headers');
}

function expandString(text: string, path: readonly string[], sources: ExpansionSources): string {
  const inRestTool = path[0] === 'restTools';
  return text.replace(PLACEHOLDER, (whole, rawName: string) => {
    const name = rawName.trim();
    // `${parameters.x}` in REST tool definitions is filled in per call by the runtime.
    if (inRestTool && PARAMETER_PLACEHOLDER.test(name)) return whole;
    const value = sources.layerEnv[name] ?? sources.processEnv[name];
    if (value === undefined) throw new MissingVariableError(name, sources.origin, path.join('.'));
    return value;
  });
}

/** Expands `${VAR}` in every string of one layer; throws MissingVariableError naming the layer. */
export function expandPlaceholders(value: unknown, sources: ExpansionSources, path: readonly string[] = []): unknown {
  if (isProtectedSubtree(path)) return value;
  if (typeof value === 'string') return expandString(value, path, sources);
  if (Array.isArray(value)) return value.map((v, i) => expandPlaceholders(v, sources, [...path, String(i)]));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandPlaceholders(v, sources, [...path, k])]));
  }
  return value;
}
