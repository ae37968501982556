/**
 * Normalises free text for matching: lower case, every run of non letters/digits
 * becomes one space, trimmed. "Review  this PR!" and "review this pr" compare equal.
 */
export function normalizeText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Whole-word (or whole-phrase) containment on normalised text. */
export function containsPhrase(normalizedHaystack: string, normalizedNeedle: string): boolean {
  if (normalizedNeedle.length === 0) return false;
  return ` ${normalizedHaystack} `.includes(` ${normalizedNeedle} `);
}

/** Length in code points, the unit JSON Schema (and ajv) use for maxLength. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
