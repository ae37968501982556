import { nextStep } from './next-step';
import { CONVERSATION, FakeGateway, NOW, runTurn, shown, tasks, USER, uuid } from './spec-helpers';
import type { DecisionContext, PendingConfirmation, ToolOutcome, UserIntent } from './types';
import { validateDecision } from './validate-output';

const ctx = (message: string, extra: Partial<DecisionContext> = {}): DecisionContext => ({
  user_id: USER,
  message,
  conversation_id: CONVERSATION,
  message_history: [],
  pending_confirmation: null,
  ...extra,
});
const pendingDelete = (expires_at = '2026-01-03T10:05:00.000Z'): PendingConfirmation => ({
  action_type: 'DELETE_TASK',
  task_id: uuid(2),
  task_description: 'buy milk',
  created_at: '2026-01-03T09:59:00.000Z',
  expires_at,
});
const turn = (message: string, store = tasks('call mom', 'buy milk'), extra: Partial<DecisionContext> = {}) => {
  const gateway = new FakeGateway(store);
  const t = runTurn(ctx(message, extra), gateway);
  expect(validateDecision(t.decision)).toEqual([]);
  return { ...t, gateway };
};

describe('Rule 1: Pending Confirmation Priority', () => {
  it('Rule 1: EXECUTE_PENDING says deleted what the tool deleted: a pending confirmation the caller sends with another description for that task id does not change the reply (probe finding)', () => {
    const t = turn('yes', undefined, { pending_confirmation: { ...pendingDelete(), task_description: 'totally different description' } });
    expect(t.invoked).toEqual([{ tool_name: 'delete_task', parameters: { user_id: USER, task_id: uuid(2) }, sequence: 1 }]);
    expect(t.decision).toMatchObject({ decision_type: 'EXECUTE_PENDING', response_text: "'buy milk' has been deleted." });
  });

  it('Rule 1: CONFIRM_YES → EXECUTE_PENDING deletes the pending task', () => {
    const t = turn('yes', undefined, { pending_confirmation: pendingDelete() });
    expect(t.invoked).toEqual([{ tool_name: 'delete_task', parameters: { user_id: USER, task_id: uuid(2) }, sequence: 1 }]);
    expect(t.decision).toMatchObject({ decision_type: 'EXECUTE_PENDING', response_text: "'buy milk' has been deleted." });
    expect(t.effect).toBe('clear_pending');
    expect(t.gateway.store.map((x) => x.description)).toEqual(['call mom']);
  });

  it('Rule 1: CONFIRM_NO → CANCEL_PENDING, nothing deleted', () => {
    const t = turn('no', undefined, { pending_confirmation: pendingDelete() });
    expect(t.invoked).toEqual([]);
    expect(t.decision).toMatchObject({ decision_type: 'CANCEL_PENDING', response_text: "OK, I won't delete 'buy milk'.", tool_calls: null });
    expect(t.effect).toBe('clear_pending');
  });

  it('Rule 1: an unrelated message cancels the pending delete and is handled normally', () => {
    const t = turn('show tasks', undefined, { pending_confirmation: pendingDelete() });
    expect(t.invoked.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(shown(t.decision)).toBe('Here are your tasks:\n1. call mom\n2. buy milk');
    expect(t.effect).toBe('clear_pending');
  });

  it('Rule 1: a new delete while one is pending replaces it', () => {
    const t = turn('delete call mom', undefined, { pending_confirmation: pendingDelete() });
    expect(t.decision.pending_action).toEqual({ action_type: 'DELETE_TASK', task_id: uuid(1), task_description: 'call mom' });
    expect(t.effect).toBe('set_pending');
  });

  it('Rule 1: expired confirmation is ignored — "yes" deletes nothing', () => {
    const t = turn('yes', undefined, { pending_confirmation: pendingDelete('2026-01-03T09:59:59.999Z') });
    expect(t.invoked).toEqual([]);
    expect(t.decision.decision_type).toBe('RESPOND_ONLY');
    expect(shown(t.decision)).toBe("That request has expired, so 'buy milk' was not deleted. Ask me again if you still want to delete it.");
    expect(t.effect).toBe('clear_pending');
  });

  it('Rule 1: expired confirmation is ignored — other messages are handled normally', () => {
    const t = turn('add task call dad', undefined, { pending_confirmation: pendingDelete('2026-01-03T09:00:00.000Z') });
    expect(shown(t.decision)).toBe("I've added 'call dad' to your tasks.");
    expect(t.effect).toBe('clear_pending');
  });

  it('Rule 1: "yes… no" is asked again and the confirmation stays', () => {
    const t = turn('yes no', undefined, { pending_confirmation: pendingDelete() });
    expect(t.invoked).toEqual([]);
    expect(t.decision).toMatchObject({ decision_type: 'REQUEST_CONFIRMATION', pending_action: { task_id: uuid(2) } });
    expect(shown(t.decision)).toBe("Sorry, I didn't catch that. Reply 'yes' to delete 'buy milk' or 'no' to keep it.");
    expect(t.effect).toBe('none');
  });

  it('Rule 1: a failed delete keeps the confirmation so "yes" can retry; a denied one ends it', () => {
    const gateway = new FakeGateway(tasks('call mom', 'buy milk'));
    gateway.failures.delete_task = 'failed';
    const failed = runTurn(ctx('yes', { pending_confirmation: pendingDelete() }), gateway);
    expect(shown(failed.decision)).toBe("Sorry, I wasn't able to delete that task. Please try again.");
    expect(failed.effect).toBe('none');
    gateway.failures.delete_task = 'denied';
    expect(runTurn(ctx('yes', { pending_confirmation: pendingDelete() }), gateway).effect).toBe('clear_pending');
  });

  it('Validation task_id: a pending delete with a non-UUID id gives the not-found message', () => {
    const t = turn('yes', undefined, { pending_confirmation: { ...pendingDelete(), task_id: 'not-a-uuid' } });
    expect(t.invoked.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(shown(t.decision)).toBe("I couldn't find a task matching 'buy milk'. Here are your current tasks:\n1. call mom\n2. buy milk");
  });
});

describe('Rule 2: Intent-to-Action Mapping', () => {
  it('Rule 2 CREATE_TASK: add_task(user_id, description) → template add_task', () => {
    const t = turn('remind me to call mom', []);
    expect(t.invoked).toEqual([{ tool_name: 'add_task', parameters: { user_id: USER, description: 'call mom' }, sequence: 1 }]);
    expect(t.decision).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: "I've added 'call mom' to your tasks.", tool_calls: t.invoked });
  });

  it('Rule 2 CREATE_TASK: no description → ASK_CLARIFICATION "What would you like the task to say?"', () => {
    const t = turn('add task', []);
    expect(t.invoked).toEqual([]);
    expect(t.decision).toMatchObject({ decision_type: 'ASK_CLARIFICATION', clarification_question: 'What would you like the task to say?' });
  });

  it('Validation message: task description of 1001 chars is refused before any tool call', () => {
    const t = turn(`add task ${'x'.repeat(1001)}`, []);
    expect(t.invoked).toEqual([]);
    expect(shown(t.decision)).toBe('Task description must be 1-1000 characters');
    expect(turn(`add task ${'x'.repeat(1000)}`, []).invoked.map((c) => c.tool_name)).toEqual(['add_task']);
  });

  it('Rule 2 LIST_TASKS: list_tasks(user_id) → "Here are your tasks:" with a numbered list', () => {
    const t = turn('what are my tasks');
    expect(t.invoked).toEqual([{ tool_name: 'list_tasks', parameters: { user_id: USER }, sequence: 1 }]);
    expect(shown(t.decision)).toBe('Here are your tasks:\n1. call mom\n2. buy milk');
  });

  it('Template list_tasks (empty): "You don\'t have any tasks yet."', () => {
    expect(shown(turn('show tasks', []).decision)).toBe("You don't have any tasks yet.");
  });

  it('Rule 2 COMPLETE_TASK: list_tasks first (sequence 1), complete_task second (sequence 2)', () => {
    const t = turn('mark buy milk as done');
    expect(t.invoked).toEqual([
      { tool_name: 'list_tasks', parameters: { user_id: USER }, sequence: 1 },
      { tool_name: 'complete_task', parameters: { user_id: USER, task_id: uuid(2) }, sequence: 2 },
    ]);
    expect(t.decision).toMatchObject({ decision_type: 'INVOKE_TOOL', tool_calls: t.invoked });
    expect(shown(t.decision)).toBe("Done! 'buy milk' has been marked as completed.");
  });

  it('Rule 2 UPDATE_TASK: list then update_task(user_id, task_id, new_description) → template update_task', () => {
    const t = turn('change task 1 to call dad');
    expect(t.invoked[1]).toEqual({
      tool_name: 'update_task',
      parameters: { user_id: USER, task_id: uuid(1), new_description: 'call dad' },
      sequence: 2,
    });
    expect(shown(t.decision)).toBe("Updated 'call mom' to 'call dad'.");
  });

  it('Rule 2 UPDATE_TASK: no new text → asks what the task should say (ours)', () => {
    const t = turn('rename buy milk');
    expect(t.invoked.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(t.decision).toMatchObject({ decision_type: 'ASK_CLARIFICATION', clarification_question: "What should 'buy milk' say instead?" });
  });

  it('Rule 2 DELETE_TASK: list then REQUEST_CONFIRMATION; nothing is deleted yet', () => {
    const t = turn('delete the last task');
    expect(t.invoked.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(t.decision).toMatchObject({
      decision_type: 'REQUEST_CONFIRMATION',
      pending_action: { action_type: 'DELETE_TASK', task_id: uuid(2), task_description: 'buy milk' },
      response_text: "Are you sure you want to delete 'buy milk'? This cannot be undone. Reply 'yes' to confirm or 'no' to cancel.",
    });
    expect(t.effect).toBe('set_pending');
    expect(t.gateway.store).toHaveLength(2);
  });

  it('Rule 2 COMPLETE_TASK: no match → ASK_CLARIFICATION with the not-found template and current list', () => {
    const t = turn('done with walk the dog');
    expect(t.decision).toMatchObject({
      decision_type: 'ASK_CLARIFICATION',
      clarification_question: "I couldn't find a task matching 'walk the dog'. Here are your current tasks:\n1. call mom\n2. buy milk",
    });
  });

  it('Rule 2 DELETE_TASK: no match with no tasks at all → not-found + "You don\'t have any tasks yet." (ours)', () => {
    expect(shown(turn('delete buy milk', []).decision)).toBe("I couldn't find a task matching 'buy milk'. You don't have any tasks yet.");
  });

  it('Rule 3 multiple: several matches → numbered clarification, no action', () => {
    const t = turn('complete milk', tasks('call mom', 'buy milk', 'buy oat milk'));
    expect(t.invoked.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(shown(t.decision)).toBe("I found multiple tasks that match 'milk':\n1. buy milk\n2. buy oat milk\nWhich one did you mean?");
  });

  it('Rule 2 COMPLETE_TASK: no reference → "Which task do you mean?" with the list (ours)', () => {
    expect(shown(turn('done').decision)).toBe('Which task do you mean? Here are your current tasks:\n1. call mom\n2. buy milk');
  });

  it('Rule 2 GENERAL_CHAT: RESPOND_ONLY without tool calls', () => {
    const t = turn('hello');
    expect(t.invoked).toEqual([]);
    expect(t.decision).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
    expect(shown(t.decision)).toMatch(/^Hi!/);
  });

  it('Rule 2 AMBIGUOUS: ASK_CLARIFICATION offering the possible intents', () => {
    const t = turn('show me how to delete a task');
    expect(t.decision).toMatchObject({
      decision_type: 'ASK_CLARIFICATION',
      clarification_question: "I'm not sure what you'd like to do. Would you like to see your tasks, delete a task, or something else?",
    });
  });

  it('Validation task_id: a listed task whose id is not a UUID is reported as not found', () => {
    const store = tasks('call mom');
    store[0].task_id = 'task-1';
    const t = turn('done with call mom', store);
    expect(t.invoked.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(shown(t.decision)).toBe("I couldn't find a task matching 'call mom'. Here are your current tasks:\n1. call mom");
  });
});

describe('Error responses', () => {
  const failing = (message: string, tool: 'add_task' | 'list_tasks' | 'complete_task' | 'update_task', status: 'failed' | 'timeout' | 'denied') => {
    const gateway = new FakeGateway(tasks('call mom', 'buy milk'));
    gateway.failures[tool] = status;
    const t = runTurn(ctx(message), gateway);
    expect(validateDecision(t.decision)).toEqual([]);
    return shown(t.decision);
  };

  it.each([
    ['add task x', 'add_task', "Sorry, I wasn't able to add that task. Please try again."],
    ['show tasks', 'list_tasks', "Sorry, I wasn't able to get your tasks. Please try again."],
    ['done with call mom', 'complete_task', "Sorry, I wasn't able to complete that task. Please try again."],
    ['done with call mom', 'list_tasks', "Sorry, I wasn't able to complete that task. Please try again."],
    ['rename call mom to call dad', 'update_task', "Sorry, I wasn't able to update that task. Please try again."],
  ] as const)('Template tool failure: "%s" with %s failing → %s', (message, tool, expected) => {
    const text = failing(message, tool, 'failed');
    expect(text).toBe(expected);
    expect(text).not.toMatch(/E_|db-conn|10\.0\.0/);
  });

  it('Template timeout: "taking longer than expected"', () => {
    expect(failing('show tasks', 'list_tasks', 'timeout')).toBe('This is taking longer than expected. Please try again in a moment.');
  });

  it('Template tool failure: a denied call gets the same friendly message, never the error code', () => {
    expect(failing('add task x', 'add_task', 'denied')).toBe("Sorry, I wasn't able to add that task. Please try again.");
  });

  it('Template tool failure: a list result of the wrong shape is a failure, not an empty list', () => {
    const intent: UserIntent = { intent_type: 'LIST_TASKS', confidence: 1, extracted_params: null };
    const call = { tool_name: 'list_tasks' as const, parameters: { user_id: USER }, sequence: 1 };
    const step = nextStep({ context: ctx('show tasks'), intent, now: NOW }, [{ call, status: 'ok', result: { rows: [] } }]);
    expect(step.kind === 'done' && shown(step.decision)).toBe("Sorry, I wasn't able to get your tasks. Please try again.");
  });
});

describe('Step machine', () => {
  const intent: UserIntent = { intent_type: 'COMPLETE_TASK', confidence: 1, extracted_params: { task_reference: 'buy milk' } };
  const input = { context: ctx('mark buy milk as done'), intent, now: NOW };
  const listCall = { tool_name: 'list_tasks' as const, parameters: { user_id: USER }, sequence: 1 };
  const listed: ToolOutcome = { call: listCall, status: 'ok', result: { tasks: tasks('call mom', 'buy milk') } };

  it('Rule 2: each step asks for exactly the next call, and replay gives the same steps', () => {
    expect(nextStep(input, [])).toEqual({ kind: 'invoke', call: listCall });
    const second = nextStep(input, [listed]);
    expect(second).toEqual({ kind: 'invoke', call: { tool_name: 'complete_task', parameters: { user_id: USER, task_id: uuid(2) }, sequence: 2 } });
    expect(nextStep(input, [listed])).toEqual(second);
  });

  it('Rule 2: an outcome for a call that was not asked for is treated as a failure', () => {
    const wrong: ToolOutcome = { call: { ...listCall, tool_name: 'add_task' }, status: 'ok', result: {} };
    const step = nextStep(input, [wrong]);
    expect(step.kind === 'done' && shown(step.decision)).toBe("Sorry, I wasn't able to complete that task. Please try again.");
  });
});
