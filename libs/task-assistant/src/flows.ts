/**
 * Rule 2: Intent-to-Action Mapping, one flow per intent. Each flow is replayable:
 * given the outcomes so far it either asks for the next call or finishes.
 */
import {
  actionPhrase, clarify, done, failureText, invoked, oldDescriptionOf, outcomeAt, requestConfirmation, respond,
  taskOf, tasksOf, toolCall,
} from './decisions';
import { resolveTaskReference, type Resolution, type ResolutionRule } from './resolve';
import { formatNumberedList, INTENT_OPTION_PHRASES, TEMPLATES } from './templates';
import { DESCRIPTION_MAX } from './tool-schemas';
import { isUuid } from '@runledger/kernel';
import { codePointLength, hasVisibleText } from './text';
import type { DecisionContext, IntentType, Task, TaskActionIntent, ToolCall, ToolName, ToolOutcome, TurnStep } from './types';
import { chatTopic } from './vocabulary';

type Params = Record<string, unknown> | null;

/** A parameter's text, or null when it shows nothing (invisible characters only count as missing: contract 000). */
function text(params: Params, key: string): string | null {
  const v = params?.[key];
  return typeof v === 'string' && hasVisibleText(v) ? v.trim() : null;
}

function tooLong(s: string): boolean {
  return codePointLength(s) > DESCRIPTION_MAX;
}

/** CREATE_TASK → add_task(user_id, description). */
export function createFlow(ctx: DecisionContext, params: Params, outcomes: readonly ToolOutcome[]): TurnStep {
  const description = text(params, 'description');
  if (!description) return done(clarify(TEMPLATES.clarification.missingDescription()));
  if (tooLong(description)) return done(respond(TEMPLATES.error.descriptionLength()));
  const call = toolCall('add_task', { user_id: ctx.user_id, description }, 1);
  const o = outcomeAt(outcomes, 0, call);
  if (!o) return { kind: 'invoke', call };
  if (o.status !== 'ok') return done(invoked([o.call], failureText(o, actionPhrase('add_task'))));
  return done(invoked([o.call], TEMPLATES.success.addTask(taskOf(o.result)?.description ?? description)));
}

/** LIST_TASKS → list_tasks(user_id). */
export function listFlow(ctx: DecisionContext, outcomes: readonly ToolOutcome[]): TurnStep {
  const call = toolCall('list_tasks', { user_id: ctx.user_id }, 1);
  const o = outcomeAt(outcomes, 0, call);
  if (!o) return { kind: 'invoke', call };
  const tasks = o.status === 'ok' ? tasksOf(o.result) : null;
  if (o.status !== 'ok' || !tasks) return done(invoked([o.call], failureText(o, actionPhrase('list_tasks'))));
  if (tasks.length === 0) return done(invoked([o.call], TEMPLATES.success.listTasksEmpty()));
  return done(invoked([o.call], TEMPLATES.success.listTasks(formatNumberedList(tasks.map((t) => t.description)))));
}

const RULE_RANK: Readonly<Record<ResolutionRule, number>> = { exact: 0, partial: 1, position: 2, numeric: 3 };

function rank(r: Resolution<Task>): number {
  if (r.kind === 'match') return RULE_RANK[r.rule];
  return r.kind === 'multiple' ? 4 + RULE_RANK[r.rule] : 9;
}

/**
 * "rename go to the store to go to the mall" can be cut at any "to": keep the cut whose
 * reference resolves best (exact beats partial …), the first cut on a tie.
 */
function chooseSplit(params: Params, tasks: Task[]): { reference: string | null; newDescription: string | null } {
  const first = { reference: text(params, 'task_reference'), newDescription: text(params, 'new_description') };
  const splits = Array.isArray(params?.candidate_splits) ? (params?.candidate_splits as unknown[]) : [];
  let best = first;
  let bestRank = first.reference ? rank(resolveTaskReference(first.reference, tasks)) : 10;
  for (const s of splits) {
    const candidate = { reference: text(s as Params, 'task_reference'), newDescription: text(s as Params, 'new_description') };
    if (!candidate.reference) continue;
    const r = rank(resolveTaskReference(candidate.reference, tasks));
    if (r < bestRank) [best, bestRank] = [candidate, r];
  }
  return best;
}

const ACTION_TOOL: Readonly<Record<TaskActionIntent, ToolName>> = {
  COMPLETE_TASK: 'complete_task',
  UPDATE_TASK: 'update_task',
  DELETE_TASK: 'delete_task',
};

/** The clarification when a reference finds no usable task (empty list: our "no tasks yet" variant). */
function notFound(reference: string, tasks: Task[], executed: ToolCall[]): TurnStep {
  const q = tasks.length
    ? TEMPLATES.clarification.noMatch(reference, formatNumberedList(tasks.map((t) => t.description)))
    : TEMPLATES.ours.noMatchEmpty(reference);
  return done(clarify(q, executed));
}

/**
 * COMPLETE / UPDATE / DELETE: list_tasks first (sequence 1), resolve the reference
 * (Rule 3), then complete/update (sequence 2) or ask for confirmation (delete).
 */
export function actionFlow(
  ctx: DecisionContext,
  intent: TaskActionIntent,
  params: Params,
  outcomes: readonly ToolOutcome[],
): TurnStep {
  const tool = ACTION_TOOL[intent];
  const stated = text(params, 'new_description');
  if (intent === 'UPDATE_TASK' && stated && tooLong(stated)) return done(respond(TEMPLATES.error.descriptionLength()));

  const list = toolCall('list_tasks', { user_id: ctx.user_id }, 1);
  const listed = outcomeAt(outcomes, 0, list);
  if (!listed) return { kind: 'invoke', call: list };
  const tasks = listed.status === 'ok' ? tasksOf(listed.result) : null;
  if (listed.status !== 'ok' || !tasks) return done(invoked([listed.call], failureText(listed, actionPhrase(tool))));
  const executed = [listed.call];

  const { reference, newDescription } = intent === 'UPDATE_TASK'
    ? chooseSplit(params, tasks)
    : { reference: text(params, 'task_reference'), newDescription: null };
  if (!reference) {
    const q = tasks.length
      ? TEMPLATES.ours.whichTask(formatNumberedList(tasks.map((t) => t.description)))
      : TEMPLATES.success.listTasksEmpty();
    return done(clarify(q, executed));
  }
  const found = resolveTaskReference(reference, tasks);
  if (found.kind === 'multiple') {
    const q = TEMPLATES.clarification.multipleMatches(reference, formatNumberedList(found.tasks.map((t) => t.description)));
    return done(clarify(q, executed));
  }
  // A task id that is not a UUID cannot be acted on: contract says "Task not found message".
  if (found.kind === 'none' || !isUuid(found.task.task_id)) return notFound(reference, tasks, executed);
  const task = found.task;

  if (intent === 'DELETE_TASK') {
    const action = { action_type: 'DELETE_TASK' as const, task_id: task.task_id, task_description: task.description };
    return done(requestConfirmation(action, executed), 'set_pending');
  }
  if (intent === 'UPDATE_TASK' && !newDescription) return done(clarify(TEMPLATES.ours.newDescription(task.description), executed));
  if (newDescription && tooLong(newDescription)) return done(respond(TEMPLATES.error.descriptionLength()));

  const parameters: Record<string, unknown> = { user_id: ctx.user_id, task_id: task.task_id };
  if (intent === 'UPDATE_TASK') parameters.new_description = newDescription;
  const call = toolCall(tool, parameters, 2);
  const o = outcomeAt(outcomes, 1, call);
  if (!o) return { kind: 'invoke', call };
  const all = [...executed, o.call];
  if (o.status !== 'ok') return done(invoked(all, failureText(o, actionPhrase(tool))));
  const after = taskOf(o.result);
  if (intent === 'COMPLETE_TASK') return done(invoked(all, TEMPLATES.success.completeTask(after?.description ?? task.description)));
  const old = oldDescriptionOf(o.result) ?? task.description;
  return done(invoked(all, TEMPLATES.success.updateTask(old, after?.description ?? (newDescription as string))));
}

/** GENERAL_CHAT → RESPOND_ONLY (texts are ours: the contract gives none). */
export function chatFlow(message: string): TurnStep {
  const topic = chatTopic(message);
  const t = topic === 'greeting' ? TEMPLATES.ours.greeting() : topic === 'thanks' ? TEMPLATES.ours.thanks()
    : topic === 'dismiss' ? TEMPLATES.ours.dismiss() : TEMPLATES.ours.generalChat();
  return done(respond(t));
}

const OFFERABLE: readonly IntentType[] = ['CREATE_TASK', 'LIST_TASKS', 'COMPLETE_TASK', 'UPDATE_TASK', 'DELETE_TASK'];

/**
 * AMBIGUOUS → ASK_CLARIFICATION. The template has two options: the first two possible
 * intents, topped up with "add a task" / "see your tasks" when fewer are known.
 */
export function ambiguousFlow(params: Params): TurnStep {
  const possible = Array.isArray(params?.possible_intents) ? (params?.possible_intents as unknown[]) : [];
  const options = possible.filter((p): p is IntentType => OFFERABLE.includes(p as IntentType));
  for (const fallback of ['CREATE_TASK', 'LIST_TASKS'] as const) {
    if (options.length < 2 && !options.includes(fallback)) options.push(fallback);
  }
  const [a, b] = options.map((o) => INTENT_OPTION_PHRASES[o]);
  return done(clarify(TEMPLATES.clarification.ambiguousIntent(a, b)));
}
