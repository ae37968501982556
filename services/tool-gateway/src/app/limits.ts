import { truncateToolResponse } from '@runledger/agent-session';
import { settingNumber, settingText } from '@runledger/kernel';

/** Tool execution limits and operator fault injection, from the environment. */
export interface GatewayLimits {
  defaultTimeoutMs: number;
  responseMaxBytes: number;
  /** Resilience drills: `tool=delay:800` or `tool=fail`, comma separated (RL_TOOL_FAULTS). Never set in production. */
  faults: Map<string, { delayMs?: number; fail?: boolean }>;
}

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayLimits {
  const faults = new Map<string, { delayMs?: number; fail?: boolean }>();
  for (const entry of (settingText('RL_TOOL_FAULTS', env) ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [tool, spec] = entry.split('=');
    if (!tool || !spec) continue;
    if (spec === 'fail') faults.set(tool, { fail: true });
    else if (spec.startsWith('delay:')) faults.set(tool, { delayMs: Number(spec.slice(6)) || 0 });
  }
  return {
    defaultTimeoutMs: settingNumber('TOOL_TIMEOUT_MS', env),
    responseMaxBytes: settingNumber('TOOL_RESPONSE_MAX_BYTES', env),
    faults,
  };
}

/**
 * Contract 002 truncation of a tool output, with the project's one truncation function (agent-session's
 * truncateToolResponse): text as-is, anything else as JSON; over the limit it becomes the notice plus the kept
 * head, the whole within `maxBytes`.
 */
export function truncateOutput(output: unknown, maxBytes: number): { output: unknown; truncated: boolean; originalBytes: number } {
  const text = typeof output === 'string' ? output : JSON.stringify(output ?? null);
  const cut = truncateToolResponse(text, maxBytes);
  if (!cut.truncated) return { output, truncated: false, originalBytes: Buffer.byteLength(text) };
  return { output: cut.content, truncated: true, originalBytes: cut.originalBytes };
}
