/**
 * The one place text is cut to a bound, in the unit the bound is stated in, never splitting a character:
 * - characters (Unicode code points) for a field a contract bounds in characters (JSON Schema `maxLength` counts code
 *   points; contract 000's response preview): `truncateChars`;
 * - UTF-8 bytes for a byte budget (contract 002's toolResponseMaxBytes): `utf8Prefix`.
 * String.prototype.slice counts UTF-16 units and can leave half a surrogate pair in the log; nothing cuts text with it.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** At most `max` code points of `text`; with `ellipsis`, a cut text ends in "..." within the same bound. */
export function truncateChars(text: string, max: number, opts: { ellipsis?: boolean } = {}): string {
  // Fast path: a string no longer in UTF-16 units than the bound is no longer in code points either.
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return opts.ellipsis && max > 3 ? `${chars.slice(0, max - 3).join('')}...` : chars.slice(0, max).join('');
}

export function utf8ByteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The longest prefix of `text` that is at most `maxBytes` of UTF-8 (cut at a character boundary), and its size. */
export function utf8Prefix(text: string, maxBytes: number): { text: string; bytes: number; originalBytes: number } {
  const bytes = encoder.encode(text);
  let end = Math.min(Math.max(0, maxBytes), bytes.length);
  // Back off continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: end === bytes.length ? text : decoder.decode(bytes.subarray(0, end)), bytes: end, originalBytes: bytes.length };
}

/**
 * A stored text's characters, as ingest reads an artifact: UTF-8, a leading byte order mark dropped (the caller's
 * editor wrote it; it is no character of the content), a malformed byte as U+FFFD. Buffer's decode keeps the mark:
 * a JSON form or recording read with it is not JSON, and a text recording's first speaker is named with it.
 */
export function artifactText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
