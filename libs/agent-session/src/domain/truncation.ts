import { truncationNotice } from './notices';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

export type TruncationResult =
  | { readonly truncated: false; readonly content: string }
  | { readonly truncated: true; readonly content: string; readonly originalBytes: number; readonly truncatedBytes: number };

/** Cuts at most `maxBytes` of UTF-8 without splitting a character. */
function utf8Prefix(bytes: Uint8Array, maxBytes: number): Uint8Array {
  let end = Math.min(maxBytes, bytes.length);
  // Back off continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/**
 * §1 toolResponseMaxBytes: a response over the limit keeps its head, with the contract's notice
 * prepended. Y in the notice is the number of original bytes kept; the whole message (notice, newline,
 * kept bytes) stays within the limit so the setting is a real ceiling.
 */
export function truncateToolResponse(content: string, maxBytes: number): TruncationResult {
  const bytes = encoder.encode(content);
  if (bytes.length <= maxBytes) return { truncated: false, content };
  const noticeBudget = byteLength(truncationNotice(bytes.length, maxBytes)) + 1;
  const kept = utf8Prefix(bytes, Math.max(0, maxBytes - noticeBudget));
  return {
    truncated: true,
    content: `${truncationNotice(bytes.length, kept.length)}\n${decoder.decode(kept)}`,
    originalBytes: bytes.length,
    truncatedBytes: kept.length,
  };
}
