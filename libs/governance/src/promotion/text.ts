/** A normalised word and where it sits in the original text (UTF-16 offsets). */
export interface Token {
  readonly word: string;
  readonly start: number;
  readonly end: number;
}

// Letters and digits (with combining marks) make words; everything else — punctuation, whitespace,
// symbols — separates them. `&` is kept as the word "and" so "privileged & confidential" reads as written.
const WORD = /[\p{L}\p{N}\p{M}]+|&/gu;

/** Lower-cases, folds compatibility forms (full-width, ligatures) and strips accents: "José" → "jose". */
export function normaliseWord(word: string): string {
  if (word === '&') return 'and';
  return word.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Splits text into normalised words, keeping each word's offsets in the original text. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(WORD)) {
    const word = normaliseWord(m[0]);
    if (word) tokens.push({ word, start: m.index, end: m.index + m[0].length });
  }
  return tokens;
}

/** Indices in `tokens` where the word sequence `words` starts. */
export function findSequence(tokens: readonly Token[], words: readonly string[]): number[] {
  const hits: number[] = [];
  if (words.length === 0) return hits;
  outer: for (let i = 0; i + words.length <= tokens.length; i++) {
    for (let j = 0; j < words.length; j++) if (tokens[i + j].word !== words[j]) continue outer;
    hits.push(i);
  }
  return hits;
}

/** The word n-grams of a token list, joined by single spaces. */
export function shingles(tokens: readonly Token[], n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + n <= tokens.length; i++) out.push(tokens.slice(i, i + n).map((t) => t.word).join(' '));
  return out;
}
