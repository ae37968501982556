import { existsSync } from 'node:fs';
import { truncateToolResponse } from '@runledger/agent-session';
import { settingNumber, settingText } from '@runledger/kernel';

/** One tool's drill: wait `delayMs`, wait while the file `holdPath` exists, or fail. */
export interface ToolFault {
  delayMs?: number;
  holdPath?: string;
  fail?: boolean;
}

/** Tool execution limits and operator fault injection, from the environment. */
export interface GatewayLimits {
  defaultTimeoutMs: number;
  responseMaxBytes: number;
  /**
   * Resilience drills, comma separated (RL_TOOL_FAULTS): `tool=delay:800`, `tool=fail`, or `tool=hold:/path` (the call
   * waits while that file exists: a test holds a run inside a tool for exactly as long as it needs). Never set in production.
   */
  faults: Map<string, ToolFault>;
}

export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayLimits {
  const faults = new Map<string, ToolFault>();
  for (const entry of (settingText('RL_TOOL_FAULTS', env) ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = entry.indexOf('=');
    const [tool, spec] = at > 0 ? [entry.slice(0, at), entry.slice(at + 1)] : [];
    if (!tool || !spec) continue;
    if (spec === 'fail') faults.set(tool, { fail: true });
    else if (spec.startsWith('delay:')) faults.set(tool, { delayMs: Number(spec.slice(6)) || 0 });
    else if (spec.startsWith('hold:') && spec.length > 5) faults.set(tool, { holdPath: spec.slice(5) });
  }
  return {
    defaultTimeoutMs: settingNumber('TOOL_TIMEOUT_MS', env),
    responseMaxBytes: settingNumber('TOOL_RESPONSE_MAX_BYTES', env),
    faults,
  };
}

/** How often a held call looks whether its hold file is still there. */
const HOLD_LOOK_MS = 50;

/**
 * Waits while the drill's hold file exists, or until the call is abandoned (`signal`: the gateway gave up on it at its
 * timeout, so a hold never outlasts the call's own bound).
 */
export async function whileHeld(path: string, signal?: AbortSignal): Promise<void> {
  while (existsSync(path)) {
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, HOLD_LOOK_MS);
      signal?.addEventListener('abort', done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
    });
  }
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
