/**
 * Reads rate-limit hints (§3: honour Retry-After). `retry-after-ms` (OpenAI) wins; `retry-after` is either
 * delta-seconds or an HTTP date, resolved against `nowMs` supplied by the caller.
 */
export function parseRetryAfter(headers: { retryAfterMs?: string | null; retryAfter?: string | null }, nowMs: number): number | undefined {
  const ms = headers.retryAfterMs?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.retryAfter?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
