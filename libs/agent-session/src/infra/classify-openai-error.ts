import type OpenAI from 'openai';
import { openaiModule } from './openai-module';
import { parseRetryAfter } from '../domain/retry-after';
import type { ModelError } from '../domain/types';

function errorCode(e: InstanceType<typeof OpenAI.APIError>): string {
  const body = e.error as { code?: unknown; type?: unknown } | undefined;
  return [e.code, e.type, body?.code, body?.type].filter((v): v is string => typeof v === 'string').join(' ');
}

/**
 * Maps whatever the `openai` client threw to the session's error kinds (§3): 401/403 auth; 402, or a 429
 * whose code says insufficient_quota, quota (both fatal); other 429s rate_limit with Retry-After; 408
 * and client timeouts timeout; connection failures network; 5xx and other refusals model (a different
 * target may succeed); anything else, an unreadable answer, invalid_response.
 */
export function classifyOpenAiError(e: unknown, nowMs: number): ModelError {
  const message = e instanceof Error ? e.message : String(e);
  const { default: OpenAI } = openaiModule();
  if (e instanceof OpenAI.APIConnectionTimeoutError) return { kind: 'timeout', message };
  if (e instanceof OpenAI.APIUserAbortError) return { kind: 'timeout', message: `request aborted: ${message}` };
  if (e instanceof OpenAI.APIConnectionError) return { kind: 'network', message };
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const status = e.status;
    if (status === 401 || status === 403) return { kind: 'auth', message, status };
    if (status === 402) return { kind: 'quota', message, status };
    if (status === 429) {
      if (/insufficient_quota/.test(errorCode(e))) return { kind: 'quota', message, status };
      const retryAfterMs = parseRetryAfter({ retryAfterMs: e.headers?.get('retry-after-ms'), retryAfter: e.headers?.get('retry-after') }, nowMs);
      return { kind: 'rate_limit', message, status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    }
    if (status === 408) return { kind: 'timeout', message, status };
    return { kind: 'model', message, status };
  }
  return { kind: 'invalid_response', message };
}
