/** One configuration source after expansion (§7 Layer Precedence). */
export interface ConfigLayer {
  /** The file it came from, or another description of the source. */
  readonly origin: string;
  readonly config: Readonly<Record<string, unknown>>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key (providers, mcpServers, queues, …); anything else, arrays included, is replaced. */
export function deepMerge(lower: unknown, higher: unknown): unknown {
  if (!isPlainObject(lower) || !isPlainObject(higher)) return higher === undefined ? lower : higher;
  const out: Record<string, unknown> = { ...lower };
  for (const [key, value] of Object.entries(higher)) out[key] = key in out ? deepMerge(out[key], value) : value;
  return out;
}

/** Merges layers given highest priority first: a higher layer overrides a lower one for the same key. */
export function mergeLayers(layersHighestFirst: readonly ConfigLayer[]): Record<string, unknown> {
  return [...layersHighestFirst].reverse().reduce<Record<string, unknown>>((acc, layer) => deepMerge(acc, layer.config) as Record<string, unknown>, {});
}
