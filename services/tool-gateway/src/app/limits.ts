/** Tool execution limits and operator fault injection, from the environment. */
export interface GatewayLimits {
  defaultTimeoutMs: number;
  responseMaxBytes: number;
  /** Resilience drills: `tool=delay:800` or `tool=fail`, comma separated (RL_TOOL_FAULTS). Never set in production. */
  faults: Map<string, { delayMs?: number; fail?: boolean }>;
}

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayLimits {
  const faults = new Map<string, { delayMs?: number; fail?: boolean }>();
  for (const entry of (env.RL_TOOL_FAULTS ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [tool, spec] = entry.split('=');
    if (!tool || !spec) continue;
    if (spec === 'fail') faults.set(tool, { fail: true });
    else if (spec.startsWith('delay:')) faults.set(tool, { delayMs: Number(spec.slice(6)) || 0 });
  }
  return {
    defaultTimeoutMs: Number(env.TOOL_TIMEOUT_MS ?? 5_000),
    responseMaxBytes: Number(env.TOOL_RESPONSE_MAX_BYTES ?? 65_536),
    faults,
  };
}

/**
 * Contract 002 truncation: an output over the limit becomes its first bytes, prefixed by the notice
 * `[TRUNCATED] Original size X bytes; truncated to Y bytes.`
 */
export function truncateOutput(output: unknown, maxBytes: number): { output: unknown; truncated: boolean; originalBytes: number } {
  const json = JSON.stringify(output ?? null);
  const bytes = Buffer.byteLength(json);
  if (bytes <= maxBytes) return { output, truncated: false, originalBytes: bytes };
  const kept = Buffer.from(json).subarray(0, maxBytes).toString('utf8').replace(/\uFFFD+$/, '');
  return { output: `[TRUNCATED] Original size ${bytes} bytes; truncated to ${Buffer.byteLength(kept)} bytes.\n${kept}`, truncated: true, originalBytes: bytes };
}
