import { utf8ByteLength, utf8Prefix } from '@runledger/kernel';
import { truncationNotice } from './notices';

export const byteLength = utf8ByteLength;

export type TruncationResult =
  | { readonly truncated: false; readonly content: string }
  | { readonly truncated: true; readonly content: string; readonly originalBytes: number; readonly truncatedBytes: number };

/**
 * §1 toolResponseMaxBytes: a response over the limit keeps its head, with the contract's notice
 * prepended. Y in the notice is the number of original bytes kept; the whole message (notice, newline,
 * kept bytes) stays within the limit so the setting is a real ceiling.
 */
export function truncateToolResponse(content: string, maxBytes: number): TruncationResult {
  const originalBytes = utf8ByteLength(content);
  if (originalBytes <= maxBytes) return { truncated: false, content };
  const noticeBudget = utf8ByteLength(truncationNotice(originalBytes, maxBytes)) + 1;
  const kept = utf8Prefix(content, maxBytes - noticeBudget);
  return {
    truncated: true,
    content: `${truncationNotice(originalBytes, kept.bytes)}\n${kept.text}`,
    originalBytes,
    truncatedBytes: kept.bytes,
  };
}
