/** Small text helpers shared by the classifier, the resolver and the validators. */

/** Length in Unicode code points, the way JSON Schema (and a person) counts characters. */
export function codePointLength(s: string): number {
  return Array.from(s).length;
}

/**
 * A character that shows nothing: white space, default-ignorable code points (zero-width space and joiners, word
 * joiner, soft hyphen, bidi marks, fillers, variation selectors, tags), other format and control characters, and the
 * blank braille pattern. An ECMA-262 class for the `u` flag, so JSON Schema (Ajv) and the engine read the same rule.
 */
const INVISIBLE = '\\p{White_Space}\\p{Default_Ignorable_Code_Point}\\p{Cc}\\p{Cf}\\u2800';

/** JSON Schema `pattern` of a description (contract 000 "task description 1-1000 chars"): at least one character that shows. */
export const VISIBLE_TEXT_PATTERN = `[^${INVISIBLE}]`;
const VISIBLE_RE = new RegExp(VISIBLE_TEXT_PATTERN, 'u');

/** True when `s` shows something: a text of invisible characters only is empty (contract 000 "Missing description"). */
export function hasVisibleText(s: string): boolean {
  return VISIBLE_RE.test(s);
}

/** Straight quotes and single spaces, so patterns need not care about typography. */
export function normalizeText(s: string): string {
  return s
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/g, "'")
    .replace(/[\u201C\u201D\u201E\u2033]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

const QUOTE_PAIRS: ReadonlyArray<[string, string]> = [["'", "'"], ['"', '"'], ['`', '`']];

/** Removes quotes wrapping the whole string ("'buy milk'" → "buy milk"), repeatedly. */
export function stripQuotes(s: string): string {
  let out = s.trim();
  for (let changed = true; changed && out.length >= 2; ) {
    changed = false;
    for (const [open, close] of QUOTE_PAIRS) {
      if (out.startsWith(open) && out.endsWith(close)) {
        out = out.slice(open.length, out.length - close.length).trim();
        changed = true;
      }
    }
  }
  return out;
}

/** A user fragment made ready to store or compare: no wrapping quotes, no trailing punctuation. */
export function cleanFragment(s: string): string {
  let out = stripQuotes(s.trim().replace(/[\s.!?,;:]+$/, ''));
  out = out.replace(/[\s.!?,;:]+$/, '').trim();
  return out;
}

/** Escapes a literal for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Word boundaries that treat an in-word apostrophe as part of the word, so
// "done" never fires inside "don't" and "ok" never fires inside "book".
const START = "(?<!\\w)(?<!\\w')";
const END = "(?!\\w)(?!'\\w)";

/** Builds a case-insensitive, global matcher for a phrase on word boundaries; spaces match any whitespace. */
export function phraseRegExp(phrase: string): RegExp {
  const body = phrase.split(' ').map(escapeRegExp).join('\\s+');
  // Boundaries only make sense next to word characters ("todo:" may touch the next word).
  const start = /^\w/.test(phrase) ? START : '';
  const end = /\w$/.test(phrase) ? END : '';
  return new RegExp(`${start}${body}${end}`, 'gi');
}

/** True when `phrase` occurs in `text` on word boundaries. */
export function containsPhrase(text: string, phrase: string): boolean {
  return phraseRegExp(phrase).test(text);
}

/** One phrase occurrence found in a text. */
export interface PhraseSpan<T> {
  start: number;
  end: number;
  tag: T;
}

/** The compiled matchers of a phrase table, built once per table (the tables are constants; a request classifies on them). */
const MATCHERS = new WeakMap<ReadonlyArray<{ phrase: string }>, RegExp[]>();
function matchersOf(entries: ReadonlyArray<{ phrase: string }>): RegExp[] {
  let matchers = MATCHERS.get(entries);
  if (!matchers) MATCHERS.set(entries, (matchers = entries.map((e) => phraseRegExp(e.phrase))));
  return matchers;
}

/**
 * Finds every listed phrase in `text`; where occurrences overlap the longest wins,
 * so "don't forget to" hides "forget" and "mark as done" hides "done".
 * Result is ordered by position.
 */
export function findPhrases<T>(text: string, entries: ReadonlyArray<{ phrase: string; tag: T }>): PhraseSpan<T>[] {
  const all: PhraseSpan<T>[] = [];
  const matchers = matchersOf(entries);
  for (const [i, { tag }] of entries.entries()) {
    for (const m of text.matchAll(matchers[i])) {
      const start = m.index ?? 0;
      all.push({ start, end: start + m[0].length, tag });
    }
  }
  all.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: PhraseSpan<T>[] = [];
  for (const span of all) {
    if (!kept.some((k) => span.start < k.end && k.start < span.end)) kept.push(span);
  }
  return kept.sort((a, b) => a.start - b.start);
}
