/**
 * Whole-message command shapes ("add a task: X", "mark X as done", "rename X to Y").
 * A message that fits one of these is a clear command: its leading verb dominates
 * any trigger word that happens to sit inside the task text ("remind me to delete old mail").
 */
import { cleanFragment } from './text';
import type { TaskIntent } from './vocabulary';

/** A command recognised from the shape of the whole message. */
export interface CommandMatch {
  intent: TaskIntent;
  params: Record<string, unknown> | null;
}

/** One way to cut "rename A to B" into reference and new text. */
export interface UpdateSplit {
  task_reference: string;
  new_description: string;
}

const POLITE_PREFIX_RE =
  /^(?:(?:please|pls|hey|hi|hello|ok|okay|so|um+|also|and|now|then|oh|can you|could you|would you|will you|can u|could u|i want to|i wanna|i'd like to|i would like to|let's|lets|go ahead and|just)\b[\s,!.:]*)+/i;
const POLITE_SUFFIX_RE = /(?:[\s,]+(?:please|pls|thanks|thank you|thx))?[\s.!?]*$/i;

/** Drops greetings/politeness around a command: "Hey, could you add task X please?" → "add task X". */
export function stripPoliteness(text: string): string {
  return text.replace(POLITE_PREFIX_RE, '').replace(POLITE_SUFFIX_RE, '').trim();
}

const LIST_SUFFIX_RE =
  /(?:^|\s+)(?:to|on|onto|in|into|from|off|off of)\s+(?:my|the)\s+(?:(?:task|to-?do|todo)\s+)?(?:list|tasks)$/i;

/** Task text as the user means it: no "to my list" tail, no leading "to"/"called", no quotes. */
export function cleanDescription(raw: string, dropConnector: boolean): string {
  let d = cleanFragment(raw).replace(LIST_SUFFIX_RE, '');
  if (dropConnector) d = d.replace(/^(?:to|that|about|called|named|saying|that says|which says)\s+/i, '');
  return cleanFragment(d);
}

/** A task reference as the user typed it, minus list tails ("from my list") and quotes; null when empty. */
export function cleanReference(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const r = cleanFragment(
    cleanFragment(raw)
      .replace(LIST_SUFFIX_RE, '')
      .replace(/^(?:the\s+)?(?:description|text|name|wording|title)\s+(?:of|for)\s+/i, ''),
  );
  return r === '' ? null : r;
}

const CONNECTORS = ['to say', 'to read', 'to', 'into', '->', '\u2192'];

/** Every way to cut "A to B"; quoted "'A' to 'B'" gives exactly one. Ordered left to right. */
export function splitUpdate(rest: string, allowWith: boolean): UpdateSplit[] {
  const connectors = allowWith ? [...CONNECTORS, 'with'] : CONNECTORS;
  const alt = connectors.map((c) => c.replace(/[->]/g, (ch) => `\\${ch}`)).join('|');
  const quoted = new RegExp(`^(["'\`])(.+?)\\1\\s+(?:${alt})\\s+(.+)$`, 'i').exec(rest);
  if (quoted) return [{ task_reference: cleanFragment(quoted[2]), new_description: cleanFragment(quoted[3]) }];
  const splits: UpdateSplit[] = [];
  for (const m of rest.matchAll(new RegExp(`\\s+(?:${alt})\\s+`, 'gi'))) {
    const at = m.index ?? 0;
    const ref = cleanReference(rest.slice(0, at));
    const next = cleanFragment(rest.slice(at + m[0].length));
    if (ref && next) splits.push({ task_reference: ref, new_description: next });
  }
  return splits;
}

/** Parameters of an update from the text after the verb. */
export function updateParams(rest: string, allowWith: boolean): Record<string, unknown> {
  const splits = splitUpdate(rest, allowWith);
  if (splits.length === 0) return { task_reference: cleanReference(rest), new_description: null };
  return { ...splits[0], ...(splits.length > 1 ? { candidate_splits: splits } : {}) };
}

type Rule = { intent: TaskIntent; re: RegExp; build: (m: RegExpExecArray) => Record<string, unknown> | null };

const create = (d: string | undefined, dropConnector = false) => ({
  description: cleanDescription(d ?? '', dropConnector),
});
const ref = (r: string | undefined) => ({ task_reference: cleanReference(r) });
const TASK_NOUN = '(?:tasks?|list|to-?dos?|to-?do list|todo list|task list|reminders|items)';

const RULES: readonly Rule[] = [
  // CREATE_TASK
  { intent: 'CREATE_TASK', re: /^(?:add|create|make|new|set up|start)\s+(?:(?:a|an|another|one more|new)\s+)*(?:task|todo|to-do|reminder|item)s?(?:\s*[:\-\u2013\u2014]\s*|\s+|$)(.*)$/i, build: (m) => create(m[1], true) },
  { intent: 'CREATE_TASK', re: /^(?:todo|to-do|to do)\s*:\s*(.*)$/i, build: (m) => create(m[1]) },
  { intent: 'CREATE_TASK', re: /^remind me(?:\s+(?:to|about|of|that))?(?:\s+(.*))?$/i, build: (m) => create(m[1]) },
  { intent: 'CREATE_TASK', re: /^(?:i need to|i have to)\s+(.+)$/i, build: (m) => create(m[1]) },
  { intent: 'CREATE_TASK', re: /^(?:don't|dont|do not) forget(?:\s+(?:to|about))?\s+(.+)$/i, build: (m) => create(m[1]) },
  { intent: 'CREATE_TASK', re: /^(?:add|create)\s+(.+)$/i, build: (m) => create(m[1]) },
  // LIST_TASKS
  { intent: 'LIST_TASKS', re: new RegExp(`^(?:show|list|view|see|display|get|give|read|tell)(?:\\s+me)?(?:\\s+(?:all|all of|everything on))?(?:\\s+(?:my|the|our))?(?:\\s+(?:open|pending|current|remaining|outstanding|active|incomplete))?\\s+${TASK_NOUN}$`, 'i'), build: () => null },
  { intent: 'LIST_TASKS', re: /^(?:show(?:\s+me)?(?:\s+everything)?|list(?:\s+(?:them|all|everything))?)$/i, build: () => null },
  { intent: 'LIST_TASKS', re: new RegExp(`^what(?:'s|s| is| are)\\s+(?:on\\s+)?(?:my|the)\\s+(?:${TASK_NOUN}|agenda)$`, 'i'), build: () => null },
  { intent: 'LIST_TASKS', re: /^what (?:do|should|must) i (?:still )?(?:need to|have to) do(?:\s+(?:today|now|next|tomorrow|this week))?$/i, build: () => null },
  { intent: 'LIST_TASKS', re: /^(?:what(?:'s| is) (?:left|next|pending)(?:\s+(?:to do|on my list))?|what do i have(?:\s+(?:to do|left|on my list))?)$/i, build: () => null },
  { intent: 'LIST_TASKS', re: new RegExp(`^(?:(?:my|all(?: my)?|all the)\\s+)?${TASK_NOUN}$`, 'i'), build: () => null },
  { intent: 'LIST_TASKS', re: /^(?:(?:do|have) i (?:have|got) any (?:tasks|to-?dos|things to do)|how many tasks do i have)$/i, build: () => null },
  // COMPLETE_TASK
  { intent: 'COMPLETE_TASK', re: /^(?:mark|set)\s+(.+?)\s+(?:as\s+)?(?:done|complete|completed|finished)$/i, build: (m) => ref(m[1]) },
  { intent: 'COMPLETE_TASK', re: /^(?:mark(?:\s+as)?|set\s+as)\s+(?:done|complete|completed|finished)(?:\s*[:\-]\s*|\s+|$)(.*)$/i, build: (m) => ref(m[1]) },
  { intent: 'COMPLETE_TASK', re: /^(?:complete|check off|tick off|cross off)(?:\s*[:\-]\s*|\s+|$)(.*)$/i, build: (m) => ref(m[1]) },
  { intent: 'COMPLETE_TASK', re: /^(?:check|tick|cross)\s+(.+?)\s+off(?:\s+(?:my|the)\s+list)?$/i, build: (m) => ref(m[1]) },
  { intent: 'COMPLETE_TASK', re: /^(?:i(?:'ve|\s+have)?\s+(?:just\s+|already\s+)?(?:finished|completed|did|done)|(?:i'm|i\s+am)\s+(?:just\s+)?(?:done|finished)|(?:just\s+)?(?:finished|completed|done))(?:\s+with)?\s+(?!not\b)(.+)$/i, build: (m) => ref(m[1]) },
  { intent: 'COMPLETE_TASK', re: /^(.+?)\s+(?:is|are|has been|have been|was)\s+(?:now\s+|all\s+)?(?:done|finished|completed|complete)$/i, build: (m) => ref(m[1]) },
  // UPDATE_TASK
  { intent: 'UPDATE_TASK', re: /^make\s+(it|that|this|that one|this one)\s+(?:say\s+|read\s+|into\s+|be\s+)?(.+)$/i, build: (m) => ({ task_reference: m[1], new_description: cleanFragment(m[2]) }) },
  { intent: 'UPDATE_TASK', re: /^make\s+(.+?)\s+(?:say|read)\s+(.+)$/i, build: (m) => ({ task_reference: cleanReference(m[1]), new_description: cleanFragment(m[2]) }) },
  { intent: 'UPDATE_TASK', re: /^(replace)\s+(.+)$/i, build: (m) => updateParams(m[2], true) },
  { intent: 'UPDATE_TASK', re: /^(?:rename|change|update|edit|modify|reword)(?:\s+(.+))?$/i, build: (m) => updateParams(m[1] ?? '', false) },
  // DELETE_TASK
  { intent: 'DELETE_TASK', re: /^take\s+(.+?)\s+off(?:\s+of)?(?:\s+(?:my|the)\s+(?:list|tasks))?$/i, build: (m) => ref(m[1]) },
  { intent: 'DELETE_TASK', re: /^(?:delete|remove|cancel|erase|drop|scratch|trash|forget(?:\s+about)?|get rid of)(?:\s*[:\-]\s*|\s+|$)(.*)$/i, build: (m) => ref(m[1]) },
];

/** Matches a politeness-stripped message against the command shapes; first fitting shape wins. */
export function matchCommand(command: string): CommandMatch | null {
  for (const rule of RULES) {
    const m = rule.re.exec(command);
    if (m) return { intent: rule.intent, params: rule.build(m) };
  }
  return null;
}
