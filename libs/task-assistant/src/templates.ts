/**
 * Every user-facing sentence of the engine, in one place.
 * `success`, `clarification`, `confirmation` and `error` are the contract's
 * "Response Templates Contract" verbatim; `ours` holds the sentences the
 * contract does not define (documented gaps), kept apart so they are easy to review.
 */
import type { IntentType } from './types';

/** Formats a task list the way the templates expect: "1. call mom\n2. buy milk". */
export function formatNumberedList(descriptions: readonly string[]): string {
  return descriptions.map((d, i) => `${i + 1}. ${d}`).join('\n');
}

/** Options offered by the ambiguous-intent clarification, per intent. */
export const INTENT_OPTION_PHRASES: Readonly<Record<IntentType, string>> = {
  CREATE_TASK: 'add a task',
  LIST_TASKS: 'see your tasks',
  COMPLETE_TASK: 'complete a task',
  UPDATE_TASK: 'update a task',
  DELETE_TASK: 'delete a task',
  GENERAL_CHAT: 'just chat',
  AMBIGUOUS: 'add a task',
  CONFIRM_YES: 'confirm',
  CONFIRM_NO: 'cancel',
};

/** Human action phrases for the tool-failure template ("Sorry, I wasn't able to {action}."). */
export const FAILURE_ACTIONS = {
  add_task: 'add that task',
  list_tasks: 'get your tasks',
  complete_task: 'complete that task',
  update_task: 'update that task',
  delete_task: 'delete that task',
} as const;

/** All templates. Functions take the placeholders of the contract in order. */
export const TEMPLATES = {
  success: {
    addTask: (description: string) => `I've added '${description}' to your tasks.`,
    listTasks: (formattedList: string) => `Here are your tasks:\n${formattedList}`,
    listTasksEmpty: () => "You don't have any tasks yet.",
    completeTask: (description: string) => `Done! '${description}' has been marked as completed.`,
    updateTask: (oldDescription: string, newDescription: string) =>
      `Updated '${oldDescription}' to '${newDescription}'.`,
    deleteTask: (description: string) => `'${description}' has been deleted.`,
  },
  clarification: {
    ambiguousIntent: (option1: string, option2: string) =>
      `I'm not sure what you'd like to do. Would you like to ${option1}, ${option2}, or something else?`,
    multipleMatches: (reference: string, numberedList: string) =>
      `I found multiple tasks that match '${reference}':\n${numberedList}\nWhich one did you mean?`,
    noMatch: (reference: string, list: string) =>
      `I couldn't find a task matching '${reference}'. Here are your current tasks:\n${list}`,
    missingDescription: () => 'What would you like the task to say?',
  },
  confirmation: {
    deleteTask: (description: string) =>
      `Are you sure you want to delete '${description}'? This cannot be undone. Reply 'yes' to confirm or 'no' to cancel.`,
  },
  error: {
    toolFailure: (action: string) => `Sorry, I wasn't able to ${action}. Please try again.`,
    authMissing: () => 'I need you to be logged in to manage tasks.',
    invalidInput: () => "I didn't understand that. Could you rephrase?",
    /** The contract only fixes the phrase "taking longer than expected". */
    timeout: () => 'This is taking longer than expected. Please try again in a moment.',
    descriptionLength: () => 'Task description must be 1-1000 characters',
  },
  /** Gaps: sentences the contract needs but does not define. */
  ours: {
    /** CONFIRM_NO → CANCEL_PENDING. */
    cancelPending: (description: string) => `OK, I won't delete '${description}'.`,
    /** No task matched and the user has no tasks: not-found head + the empty-list sentence. */
    noMatchEmpty: (reference: string) =>
      `I couldn't find a task matching '${reference}'. You don't have any tasks yet.`,
    /** Complete/update/delete without any task reference ("done", "delete"). */
    whichTask: (list: string) => `Which task do you mean? Here are your current tasks:\n${list}`,
    /** Update with a resolved task but no new text ("rename buy milk"). */
    newDescription: (description: string) => `What should '${description}' say instead?`,
    /** A yes/no reply that mixes both while a delete is pending: the confirmation is asked again. */
    confirmAgain: (description: string) =>
      `Sorry, I didn't catch that. Reply 'yes' to delete '${description}' or 'no' to keep it.`,
    /** A yes/no reply after the pending delete expired. */
    confirmationExpired: (description: string) =>
      `That request has expired, so '${description}' was not deleted. Ask me again if you still want to delete it.`,
    /** GENERAL_CHAT replies (the contract says RESPOND_ONLY but gives no text). */
    greeting: () => 'Hi! I can help you add, list, complete, update, or delete tasks. What would you like to do?',
    thanks: () => "You're welcome!",
    dismiss: () => 'OK, never mind.',
    generalChat: () =>
      'I can help you manage your tasks: add, list, complete, update, or delete them. What would you like to do?',
    /** The run ended without a decision: said as it happened, never as a misunderstanding (issue 25). */
    cancelled: () => 'This request was cancelled by an operator before it finished; nothing more will be done for it.',
    denied: () => "I'm not allowed to handle this request.",
    erased: () => 'Your data was erased, so this request was not completed.',
    failed: () => "Sorry, I couldn't finish that request. Please try again.",
  },
} as const;
