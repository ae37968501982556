/**
 * Rule-based intent classifier (table "Intent Recognition Patterns").
 * Order: yes/no while a confirmation is pending → answer to the assistant's last
 * question → whole-message command shapes → trigger words anywhere (fallback).
 */
import { classifyFollowUp, lastMentionedTask } from './follow-up';
import { cleanDescription, cleanReference, matchCommand, stripPoliteness, updateParams } from './grammar';
import { findPhrases, normalizeText, type PhraseSpan } from './text';
import type { HistoryMessage, IntentType, UserIntent } from './types';
import { readConfirmationReply, TRIGGER_ENTRIES, type TaskIntent } from './vocabulary';

/** Confidence levels: how sure each recognition path is. */
export const CONFIDENCE = {
  confirmation: 0.95,
  command: 0.95,
  followUp: 0.9,
  noTrigger: 0.8,
  singleTrigger: 0.7,
  dominantTrigger: 0.6,
  ambiguous: 0.4,
} as const;

const PRONOUN_RE = /^(?:it|that|this|that one|this one|that task|this task|the task|the same one|same one)$/i;
// "haven't finished", "not done yet", "never completed": a negated completion is not a completion.
const NEGATION_BEFORE_RE = /(?:\bnot|n't|\bnever|\byet to)\s+(?:\w+\s+)?$/i;

function ambiguous(possible: IntentType[], confidence: number | null): UserIntent {
  return { intent_type: 'AMBIGUOUS', confidence, extracted_params: { possible_intents: possible } };
}

function triggersIn(text: string): PhraseSpan<TaskIntent>[] {
  return findPhrases(text, TRIGGER_ENTRIES).filter(
    (s) => s.tag !== 'COMPLETE_TASK' || !NEGATION_BEFORE_RE.test(text.slice(0, s.start)),
  );
}

/** Parameters from a lone trigger word: the text after it, else (for "buy milk done") the text before it. */
function fallbackParams(text: string, span: PhraseSpan<TaskIntent>): Record<string, unknown> | null {
  const after = text.slice(span.end);
  switch (span.tag) {
    case 'LIST_TASKS':
      return null;
    case 'CREATE_TASK':
      return { description: cleanDescription(after, true) };
    case 'UPDATE_TASK':
      if (/^make it$/i.test(text.slice(span.start, span.end))) {
        return { task_reference: 'it', new_description: cleanReference(after) };
      }
      return updateParams(after.trim(), false);
    default: {
      const before = text
        .slice(0, span.start)
        .replace(/^(?:(?:i|i've|i have|i'm|i am|ok|okay|so|and)\s+)+/i, '')
        .replace(/\s+(?:is|are|has been|have been|was|as)$/i, '');
      // "what have I done" is a question, not a reference to a task called "what have I".
      const usable = /^(?:what|how|why|when|where|who|which)\b/i.test(before) ? '' : before;
      return { task_reference: cleanReference(after) ?? cleanReference(usable) };
    }
  }
}

function classifyStandalone(text: string): UserIntent {
  const command = stripPoliteness(text) || text;
  const spans = triggersIn(text);
  const intents = [...new Set(spans.map((s) => s.tag))];
  const match = matchCommand(command);
  // "delete or complete buy milk": an explicit choice between actions. Task text after
  // "add"/"remind me" is free text, so it never makes a creation ambiguous.
  if (intents.length >= 2 && /\bor\b/i.test(text) && match?.intent !== 'CREATE_TASK') {
    return ambiguous(intents, CONFIDENCE.ambiguous);
  }
  if (match) return { intent_type: match.intent, confidence: CONFIDENCE.command, extracted_params: match.params };
  if (intents.length === 0) return { intent_type: 'GENERAL_CHAT', confidence: CONFIDENCE.noTrigger, extracted_params: null };

  const counts = intents.map((i) => spans.filter((s) => s.tag === i).length);
  const ranked = intents.map((intent, k) => ({ intent, count: counts[k] })).sort((a, b) => b.count - a.count);
  const dominant = ranked.length === 1 || ranked[0].count >= 2 * ranked[1].count;
  if (!dominant) return ambiguous(intents, CONFIDENCE.ambiguous);
  const span = spans.find((s) => s.tag === ranked[0].intent) as PhraseSpan<TaskIntent>;
  return {
    intent_type: ranked[0].intent,
    confidence: ranked.length === 1 ? CONFIDENCE.singleTrigger : CONFIDENCE.dominantTrigger,
    extracted_params: fallbackParams(text, span),
  };
}

/** "delete it" / "make it …": the task the assistant just talked about; unknown → no reference. */
function resolvePronoun(intent: UserIntent, history: HistoryMessage[]): UserIntent {
  const p = intent.extracted_params;
  if (!p || typeof p.task_reference !== 'string' || !PRONOUN_RE.test(p.task_reference)) return intent;
  return { ...intent, extracted_params: { ...p, task_reference: lastMentionedTask(history) } };
}

function classifyUnsafe(message: string, history: HistoryMessage[], pending: boolean): UserIntent {
  const text = normalizeText(message);
  if (text === '') return ambiguous([], CONFIDENCE.ambiguous);
  if (pending) {
    const reply = readConfirmationReply(text);
    if (reply === 'yes') return { intent_type: 'CONFIRM_YES', confidence: CONFIDENCE.confirmation, extracted_params: null };
    if (reply === 'no') return { intent_type: 'CONFIRM_NO', confidence: CONFIDENCE.confirmation, extracted_params: null };
    if (reply === 'mixed') return ambiguous(['CONFIRM_YES', 'CONFIRM_NO'], CONFIDENCE.ambiguous);
  }
  const followUp = classifyFollowUp(text, history, (m, h) => classifyUnsafe(m, h, false));
  return resolvePronoun(followUp ?? classifyStandalone(text), history);
}

/**
 * Classifies a user message. `pendingConfirmation` must be true only while a
 * non-expired confirmation is pending: CONFIRM_YES / CONFIRM_NO are produced only then
 * ("cancel" is CONFIRM_NO inside a confirmation and DELETE_TASK outside one).
 * Never throws: an internal failure degrades to AMBIGUOUS with null confidence.
 */
export function classifyIntent(
  message: string,
  history: HistoryMessage[],
  opts: { pendingConfirmation: boolean },
): UserIntent {
  try {
    const safeHistory = Array.isArray(history) ? history : [];
    return classifyUnsafe(typeof message === 'string' ? message : '', safeHistory, opts?.pendingConfirmation === true);
  } catch {
    return ambiguous([], null);
  }
}
