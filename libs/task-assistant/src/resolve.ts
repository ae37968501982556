/**
 * Rule 3: Task Reference Resolution.
 * Order: 1 exact (case-insensitive) → 2 partial (description contains reference)
 * → 3 position words → 4 numeric. The first rule that finds anything decides:
 * one task = match, several = multiple (clarify), nothing anywhere = none (not found).
 */
import { cleanFragment, codePointLength } from './text';

/** Which step of Rule 3 produced the result. */
export type ResolutionRule = 'exact' | 'partial' | 'position' | 'numeric';

/** Outcome of resolving a reference against a list. */
export type Resolution<T> =
  | { kind: 'match'; task: T; rule: ResolutionRule }
  | { kind: 'multiple'; tasks: T[]; rule: ResolutionRule }
  | { kind: 'none' };

const ORDINALS: Readonly<Record<string, number>> = {
  first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, fifth: 5, '5th': 5,
  sixth: 6, '6th': 6, seventh: 7, '7th': 7, eighth: 8, '8th': 8, ninth: 9, '9th': 9, tenth: 10, '10th': 10,
  oldest: 1, earliest: 1,
};
// Counted from the end: 1 = last.
const FROM_END: Readonly<Record<string, number>> = {
  last: 1, latest: 1, newest: 1, 'most recent': 1, 'second to last': 2, 'second last': 2, penultimate: 2,
  'third to last': 3, 'third last': 3,
};
const WORD_NUMBERS: Readonly<Record<string, number>> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
};

function lower(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The reference without articles and "task"/"one" padding: "the 2nd one" → "2nd", "the buy milk task" → "buy milk". */
export function coreReference(reference: string): string {
  return lower(cleanFragment(reference))
    .replace(/^(?:the|my|that|this|a)\s+/, '')
    .replace(/^(?:task|item|todo|to-do)\s*:\s*/, '')
    .replace(/^(?:task|item|todo|to-do)\s+(?!#?\d+$)(?!(?:one|two|three|four|five|six|seven|eight|nine|ten)$)/, '')
    .replace(/\s+(?:task|item|one|todo|to-do)$/, '')
    .trim();
}

/** 1-based position from a position word ("first", "2nd", "last"); negative counts from the end. */
export function positionOf(core: string): number | null {
  if (Object.hasOwn(ORDINALS, core)) return ORDINALS[core];
  if (Object.hasOwn(FROM_END, core)) return -FROM_END[core];
  return null;
}

/** 1-based number from "task 2", "#2", "2", "number 2", "task two". */
export function numberOf(reference: string): number | null {
  const r = lower(cleanFragment(reference)).replace(/^the\s+/, '');
  const digits = /^(?:(?:task|item|number|no\.?)\s*)?#?\s*(\d{1,6})$/.exec(r);
  if (digits) return Number(digits[1]);
  const word = /^(?:task|item|number|#)\s*(one|two|three|four|five|six|seven|eight|nine|ten)$/.exec(r);
  return word ? WORD_NUMBERS[word[1]] : null;
}

function pick<T>(tasks: readonly T[], position: number): T | undefined {
  const index = position > 0 ? position - 1 : tasks.length + position;
  return index >= 0 && index < tasks.length ? tasks[index] : undefined;
}

function decide<T>(found: T[], rule: ResolutionRule): Resolution<T> | null {
  if (found.length === 1) return { kind: 'match', task: found[0], rule };
  if (found.length > 1) return { kind: 'multiple', tasks: found, rule };
  return null;
}

/**
 * Resolves what the user called a task to the task(s) of `tasks` (in list order, oldest first).
 * Partial matching is skipped for references that are only a position or a number,
 * and needs at least 3 characters, so "2" does not pick "buy 2 apples" and "a" does not pick everything.
 */
export function resolveTaskReference<T extends { description: string }>(
  reference: string,
  tasks: readonly T[],
): Resolution<T> {
  const raw = lower(cleanFragment(reference));
  const core = coreReference(reference);
  if (raw === '') return { kind: 'none' };

  const exact = tasks.filter((t) => {
    const d = lower(t.description);
    return d === raw || d === core;
  });
  const byExact = decide(exact, 'exact');
  if (byExact) return byExact;

  const position = positionOf(core);
  const number = numberOf(reference);
  if (position === null && number === null && codePointLength(core) >= 3) {
    const byPartial = decide(tasks.filter((t) => lower(t.description).includes(core)), 'partial');
    if (byPartial) return byPartial;
  }

  if (position !== null) {
    const t = pick(tasks, position);
    if (t) return { kind: 'match', task: t, rule: 'position' };
  }
  if (number !== null) {
    const t = number > 0 ? pick(tasks, number) : undefined;
    if (t) return { kind: 'match', task: t, rule: 'numeric' };
  }
  return { kind: 'none' };
}
