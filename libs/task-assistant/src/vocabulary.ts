/**
 * Trigger phrases of the table "Intent Recognition Patterns", plus the few
 * everyday variants a person uses for the same thing (listed after the table's own).
 */
import { findPhrases } from './text';

/** Intents that are recognised by trigger phrases outside a pending confirmation. */
export type TaskIntent = 'CREATE_TASK' | 'LIST_TASKS' | 'COMPLETE_TASK' | 'UPDATE_TASK' | 'DELETE_TASK';

/** Fallback triggers, matched anywhere in the message on word boundaries. */
export const INTENT_TRIGGERS: Readonly<Record<TaskIntent, readonly string[]>> = {
  CREATE_TASK: [
    'add task', 'remind me', 'create', 'i need to', "don't forget to", 'todo:',
    'add a task', 'add a new task', 'add new task', 'new task', 'dont forget to', 'do not forget to', 'to-do:',
  ],
  LIST_TASKS: [
    'show tasks', 'what are my tasks', 'my list', 'what do i need to do', 'show me',
    'show my tasks', 'list my tasks', 'list tasks', 'my tasks', 'my to-do list', 'my todo list', 'what do i have to do',
  ],
  COMPLETE_TASK: [
    'done', 'finished', 'completed', 'mark as done', 'i did', 'check off',
    'complete', 'mark as complete', 'marked as done', 'checked off',
  ],
  UPDATE_TASK: ['change', 'update', 'modify', 'edit', 'rename', 'make it'],
  DELETE_TASK: ['delete', 'remove', 'cancel', 'get rid of', 'forget'],
};

/** Flattened trigger table for `findPhrases`. */
export const TRIGGER_ENTRIES: ReadonlyArray<{ phrase: string; tag: TaskIntent }> = (
  Object.keys(INTENT_TRIGGERS) as TaskIntent[]
).flatMap((tag) => INTENT_TRIGGERS[tag].map((phrase) => ({ phrase, tag })));

/** CONFIRM_YES row of the table, then variants ("delete it" answers "Are you sure you want to delete…"). */
const YES_PHRASES = [
  'yes', 'confirm', 'do it', 'go ahead', 'sure', 'ok',
  'yeah', 'yep', 'yup', 'y', 'okay', 'confirmed', 'go for it', 'of course', 'absolutely', 'definitely',
  'sure thing', 'please do', "i'm sure", 'i am sure', 'delete it', 'delete that', 'delete', 'remove it', "that's right", 'correct',
];

/** CONFIRM_NO row of the table, then variants; negated yes-phrases are listed so they win as the longer match. */
const NO_PHRASES = [
  'no', 'cancel', "don't", 'never mind', 'stop',
  'nope', 'nah', 'n', 'dont', 'do not', 'nevermind', 'forget it', 'not sure', "i'm not sure", 'keep it',
  "don't do it", 'do not do it', "don't delete", "don't delete it", 'do not delete', 'do not delete it',
  'abort', 'wait', 'no thanks', 'not now',
];

/** Words that may surround a yes/no without changing what it means. */
const FILLER = new Set([
  'please', 'thanks', 'thank', 'you', 'it', 'that', 'one', 'just', 'actually', 'oh', 'um', 'well', 'then',
  'the', 'task', 'i', 'said', 'really', 'and', 'so',
]);

const CONFIRM_ENTRIES = [
  ...YES_PHRASES.map((phrase) => ({ phrase, tag: 'yes' as const })),
  ...NO_PHRASES.map((phrase) => ({ phrase, tag: 'no' as const })),
];

/**
 * Reads a message as an answer to "Are you sure…?".
 * Returns null unless the message is only a yes/no answer (plus filler), so
 * "cancel buy milk" or "don't forget to call mom" are not taken as answers.
 */
export function readConfirmationReply(text: string): 'yes' | 'no' | 'mixed' | null {
  const spans = findPhrases(text, CONFIRM_ENTRIES);
  if (spans.length === 0) return null;
  let rest = '';
  let last = 0;
  for (const s of spans) {
    rest += ` ${text.slice(last, s.start)} `;
    last = s.end;
  }
  rest += text.slice(last);
  const leftover = rest
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .filter((w) => w !== '' && !FILLER.has(w));
  if (leftover.length > 0) return null;
  const tags = new Set(spans.map((s) => s.tag));
  if (tags.size > 1) return 'mixed';
  return tags.has('yes') ? 'yes' : 'no';
}

const GREETING_RE = /^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening)|howdy)\b/i;
const THANKS_RE = /\b(?:thanks|thank you|thx|cheers)\b/i;
const DISMISS_RE =
  /^(?:no|nope|nah|nothing|none|never ?mind|forget it|cancel|stop|not now|forget about it)(?:[\s,]+(?:thanks|thank you))?[\s.!]*$/i;

/** A whole-message "never mind" (used so that "cancel" after a question is not read as a delete). */
export function isDismissal(text: string): boolean {
  return DISMISS_RE.test(text.trim());
}

/** Which friendly reply a GENERAL_CHAT message gets (our gap: the contract gives no text). */
export function chatTopic(text: string): 'greeting' | 'thanks' | 'dismiss' | 'other' {
  const t = text.trim();
  if (THANKS_RE.test(t)) return 'thanks';
  if (GREETING_RE.test(t)) return 'greeting';
  if (isDismissal(t)) return 'dismiss';
  return 'other';
}
