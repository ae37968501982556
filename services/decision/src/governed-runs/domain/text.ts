/** Small text helpers shared by the agents' pure behaviours. */

/** A trimmed, whitespace-collapsed string, or '' for anything that is not a string. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
}

/** At most `max` characters; a cut is marked with an ellipsis so a bounded text never reads as complete. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `YYYY-MM-DD` of a valid calendar date given as `YYYY-MM-DD` (optionally followed by a time), else undefined. */
export function isoDay(value: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(value.trim());
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1]) return undefined;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Sentences of a text: split after . ! ? or at line breaks, trimmed, empty ones dropped. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

/** Whole-word, case-insensitive match of a keyword or phrase. */
export function mentions(text: string, keyword: string): boolean {
  const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`(^|[^a-z0-9])${escaped}($|[^a-z0-9])`, 'i').test(text);
}
