/**
 * The decision engine as a step machine. The runtime calls `nextStep` until it
 * returns `done`, executing each requested tool call in between; the same inputs
 * and outcomes always give the same step, so a turn replays exactly.
 */
import {
  actionPhrase, cancelled, clarify, done, executed, executedButGone, failureText, invoked, outcomeAt, requestConfirmation, respond, taskOf, tasksOf, toolCall,
} from './decisions';
import { actionFlow, ambiguousFlow, chatFlow, createFlow, listFlow } from './flows';
import { isPendingLive } from './pending';
import { formatNumberedList, TEMPLATES } from './templates';
import { isUuid } from '@runledger/kernel';
import { normalizeText } from './text';
import type { DecisionContext, PendingConfirmation, ToolOutcome, TurnStep, UserIntent } from './types';
import { readConfirmationReply } from './vocabulary';

function handleIntent(ctx: DecisionContext, intent: UserIntent, outcomes: readonly ToolOutcome[]): TurnStep {
  const params = intent.extracted_params;
  switch (intent.intent_type) {
    case 'CREATE_TASK':
      return createFlow(ctx, params, outcomes);
    case 'LIST_TASKS':
      return listFlow(ctx, outcomes);
    case 'COMPLETE_TASK':
    case 'UPDATE_TASK':
    case 'DELETE_TASK':
      return actionFlow(ctx, intent.intent_type, params, outcomes);
    case 'AMBIGUOUS':
      return ambiguousFlow(params);
    default:
      // GENERAL_CHAT, and a yes/no with nothing pending (the classifier never gives one then).
      return chatFlow(ctx.message);
  }
}

/**
 * CONFIRM_YES → EXECUTE_PENDING: delete_task, then "'{description}' has been deleted.", the description of the task the
 * tool deleted (the template is filled from the real tool result): a caller-supplied pending confirmation names the
 * task by id, and its description is only what the caller says (probe finding: another text was said deleted).
 */
function executePending(ctx: DecisionContext, p: PendingConfirmation, outcomes: readonly ToolOutcome[]): TurnStep {
  if (!isUuid(p.task_id)) return pendingNotFound(ctx, p, outcomes);
  const call = toolCall('delete_task', { user_id: ctx.user_id, task_id: p.task_id }, 1);
  const o = outcomeAt(outcomes, 0, call);
  if (!o) return { kind: 'invoke', call };
  if (o.status === 'ok') return done(executed(o.call, TEMPLATES.success.deleteTask(taskOf(o.result)?.description ?? p.task_description)), 'clear_pending');
  // The task is gone (deleted meanwhile, or never this user's): "Task not found message" with the current list.
  if (o.status === 'failed' && o.error_code === 'NOT_FOUND') return pendingGone(ctx, p, o, outcomes);
  // "Please try again": after a failure or timeout the confirmation stays, so "yes" retries;
  // a denial will not change on retry, so it ends the confirmation.
  return done(executed(o.call, failureText(o, actionPhrase('delete_task'))), o.status === 'denied' ? 'clear_pending' : 'none');
}

/** A pending delete whose task_id is not a UUID: contract says "Task not found message". */
function pendingNotFound(ctx: DecisionContext, p: PendingConfirmation, outcomes: readonly ToolOutcome[]): TurnStep {
  const call = toolCall('list_tasks', { user_id: ctx.user_id }, 1);
  const o = outcomeAt(outcomes, 0, call);
  if (!o) return { kind: 'invoke', call };
  const tasks = o.status === 'ok' ? tasksOf(o.result) : null;
  if (o.status !== 'ok' || !tasks) return done(invoked([o.call], failureText(o, actionPhrase('delete_task'))), 'clear_pending');
  const q = tasks.length
    ? TEMPLATES.clarification.noMatch(p.task_description, formatNumberedList(tasks.map((t) => t.description)))
    : TEMPLATES.ours.noMatchEmpty(p.task_description);
  return done(clarify(q, [o.call]), 'clear_pending');
}

/** After delete_task found nothing: list the user's tasks (sequence 2) and answer with the not-found template. */
function pendingGone(ctx: DecisionContext, p: PendingConfirmation, deleted: ToolOutcome, outcomes: readonly ToolOutcome[]): TurnStep {
  const call = toolCall('list_tasks', { user_id: ctx.user_id }, 2);
  const o = outcomeAt(outcomes, 1, call);
  if (!o) return { kind: 'invoke', call };
  const tasks = o.status === 'ok' ? tasksOf(o.result) : null;
  if (o.status !== 'ok' || !tasks) return done(invoked([deleted.call, o.call], failureText(o, actionPhrase('delete_task'))), 'clear_pending');
  const q = tasks.length
    ? TEMPLATES.clarification.noMatch(p.task_description, formatNumberedList(tasks.map((t) => t.description)))
    : TEMPLATES.ours.noMatchEmpty(p.task_description);
  return done(executedButGone(deleted.call, o.call, q), 'clear_pending');
}

/** Rule 1 "CANCEL pending_confirmation, CONTINUE": the turn's own effect wins only if it sets a new one. */
function cancellingPending(step: TurnStep): TurnStep {
  if (step.kind !== 'done' || step.conversation_effect === 'set_pending') return step;
  return { ...step, conversation_effect: 'clear_pending' };
}

function isYesNoMix(intent: UserIntent): boolean {
  const possible = intent.extracted_params?.possible_intents;
  return (
    intent.intent_type === 'AMBIGUOUS' &&
    Array.isArray(possible) &&
    possible.length > 0 &&
    possible.every((p) => p === 'CONFIRM_YES' || p === 'CONFIRM_NO')
  );
}

/**
 * Next step of a turn. `intent` must come from `classifyIntent` with
 * `pendingConfirmation: isPendingLive(context.pending_confirmation, now)`;
 * `outcomes` are the results of the calls this function asked for, in order.
 */
export function nextStep(input: { context: DecisionContext; intent: UserIntent; now: string }, outcomes: ToolOutcome[]): TurnStep {
  const { context: ctx, intent, now } = input;
  const pending = ctx.pending_confirmation ?? null;

  // Rule 1: Pending Confirmation Priority.
  if (pending && isPendingLive(pending, now)) {
    if (intent.intent_type === 'CONFIRM_YES') return executePending(ctx, pending, outcomes);
    if (intent.intent_type === 'CONFIRM_NO') return done(cancelled(TEMPLATES.ours.cancelPending(pending.task_description)), 'clear_pending');
    // "yes… no": too unclear to delete or to drop the question, so it is asked again (our choice).
    if (isYesNoMix(intent)) {
      const action = { action_type: pending.action_type, task_id: pending.task_id, task_description: pending.task_description };
      const again = requestConfirmation(action, []);
      return done({ ...again, response_text: TEMPLATES.ours.confirmAgain(pending.task_description) });
    }
    return cancellingPending(handleIntent(ctx, intent, outcomes));
  }
  if (pending) {
    // Expired: Rule 1 no longer applies. A bare yes/no still deserves to know nothing happened.
    const reply = readConfirmationReply(normalizeText(ctx.message));
    const isReply = reply !== null || intent.intent_type === 'CONFIRM_YES' || intent.intent_type === 'CONFIRM_NO';
    if (isReply) return done(respond(TEMPLATES.ours.confirmationExpired(pending.task_description)), 'clear_pending');
    return cancellingPending(handleIntent(ctx, intent, outcomes));
  }
  return handleIntent(ctx, intent, outcomes);
}
