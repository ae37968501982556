/**
 * Reading a message as the answer to the assistant's previous question.
 * The engine is stateless (contract: "based solely on the provided context"), so the
 * question is recognised from the history by the very templates that produced it.
 */
import { TEMPLATES } from './templates';
import { matchCommand, stripPoliteness } from './grammar';
import { resolveTaskReference } from './resolve';
import { cleanFragment, escapeRegExp } from './text';
import { isDismissal } from './vocabulary';
import type { HistoryMessage, UserIntent } from './types';

const SLOT = ['\u0001', '\u0002'];

/** Turns a template function back into a matcher that captures its placeholders. */
function templateMatcher(template: (...args: string[]) => string, arity: number): (text: string) => string[] | null {
  const filled = template(...SLOT.slice(0, arity));
  let pattern = escapeRegExp(filled);
  for (const slot of SLOT.slice(0, arity)) pattern = pattern.replace(slot, '([\\s\\S]+?)');
  const re = new RegExp(`^${pattern}$`);
  return (text) => {
    const m = re.exec(text);
    return m ? m.slice(1) : null;
  };
}

const MISSING_DESCRIPTION = TEMPLATES.clarification.missingDescription();
const NEW_DESCRIPTION = templateMatcher(TEMPLATES.ours.newDescription, 1);
const PICK_LISTS = [
  { match: templateMatcher(TEMPLATES.clarification.multipleMatches, 2), list: 1 },
  { match: templateMatcher(TEMPLATES.clarification.noMatch, 2), list: 1 },
  { match: templateMatcher(TEMPLATES.ours.whichTask, 1), list: 0 },
];
// Assistant sentences that name one task, with the slot holding its current description.
const TASK_MENTIONS = [
  { match: templateMatcher(TEMPLATES.success.addTask, 1), slot: 0 },
  { match: templateMatcher(TEMPLATES.success.completeTask, 1), slot: 0 },
  { match: templateMatcher(TEMPLATES.success.updateTask, 2), slot: 1 },
  { match: templateMatcher(TEMPLATES.confirmation.deleteTask, 1), slot: 0 },
  { match: templateMatcher(TEMPLATES.ours.newDescription, 1), slot: 0 },
  { match: templateMatcher(TEMPLATES.ours.cancelPending, 1), slot: 0 },
];

/** Index of the assistant message the current message answers, or -1. History is oldest first. */
export function answeredTurn(history: readonly HistoryMessage[], message: string): number {
  let end = history.length;
  // The runtime may already have appended the current message to the history.
  if (end > 0 && history[end - 1].role === 'user' && history[end - 1].content.trim() === message.trim()) end -= 1;
  return end > 0 && history[end - 1].role === 'assistant' ? end - 1 : -1;
}

/** The task the assistant last talked about, for "it" / "that one"; null when none. */
export function lastMentionedTask(history: readonly HistoryMessage[]): string | null {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    if (history[i].role !== 'assistant') continue;
    for (const { match, slot } of TASK_MENTIONS) {
      const m = match(history[i].content);
      if (m) return m[slot];
    }
    return null; // only the latest assistant message counts: older ones are stale
  }
  return null;
}

type Classify = (message: string, history: HistoryMessage[]) => UserIntent;

/**
 * The intent of `message` read as an answer to the previous assistant question, or null
 * when it is not such an answer (then it is classified on its own).
 */
export function classifyFollowUp(message: string, history: HistoryMessage[], classify: Classify): UserIntent | null {
  const at = answeredTurn(history, message);
  if (at < 0) return null;
  const question = history[at].content;
  const command = matchCommand(stripPoliteness(message));
  if (isDismissal(message)) {
    const asked = question === MISSING_DESCRIPTION || NEW_DESCRIPTION(question) || PICK_LISTS.some((p) => p.match(question));
    return asked ? { intent_type: 'GENERAL_CHAT', confidence: 0.9, extracted_params: null } : null;
  }
  const answer = cleanFragment(message);

  if (question === MISSING_DESCRIPTION) {
    if (command && command.intent !== 'UPDATE_TASK' && command.intent !== 'DELETE_TASK' && command.intent !== 'COMPLETE_TASK') return null;
    return { intent_type: 'CREATE_TASK', confidence: 0.9, extracted_params: { description: answer } };
  }
  const renamed = NEW_DESCRIPTION(question);
  if (renamed) {
    if (command) return null;
    return {
      intent_type: 'UPDATE_TASK',
      confidence: 0.9,
      extracted_params: { task_reference: renamed[0], new_description: answer },
    };
  }
  for (const pickList of PICK_LISTS) {
    const m = pickList.match(question);
    if (!m || command) continue;
    const items = m[pickList.list]
      .split('\n')
      .map((line) => /^\d+\. ([\s\S]*)$/.exec(line)?.[1])
      .filter((d): d is string => d !== undefined)
      .map((description) => ({ description }));
    const picked = resolveTaskReference(answer, items);
    const asker = history[at - 1];
    if (picked.kind !== 'match' || !asker || asker.role !== 'user') return null;
    const original = classify(asker.content, history.slice(0, at - 1));
    const t = original.intent_type;
    if (t !== 'COMPLETE_TASK' && t !== 'UPDATE_TASK' && t !== 'DELETE_TASK') return null;
    const params: Record<string, unknown> = { ...(original.extracted_params ?? {}), task_reference: picked.task.description };
    delete params.candidate_splits;
    return { intent_type: t, confidence: 0.9, extracted_params: params };
  }
  return null;
}
