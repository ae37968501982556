/**
 * Contract 000 "Decision Rules Contract": every branch of Rule 1 (pending confirmation priority),
 * Rule 2 (intent-to-action mapping) and Rule 3 (task reference resolution), over the bus; and where a turn's
 * context comes from (caller-sent, validated and honoured, vs the log's conversation projection).
 */
import { TestStack } from './support/stack';
import { Conversation, eventTypes, intentOf, pendingFor, shown } from './support/task-assistant';

jest.setTimeout(120_000);

describe('Contract 000 decision rules over the bus', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.shared();
  });
  afterAll(async () => stack?.stop());

  const chat = () => new Conversation(stack);

  describe('Rule 1: pending confirmation priority', () => {
    it('Rule 1: live confirmation + CONFIRM_YES → EXECUTE_PENDING with the pending delete_task call', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      const ask = await c.say('delete call mom');
      const r = await c.say('yes');
      expect(r).toMatchObject({ decision_type: 'EXECUTE_PENDING', response_text: "'call mom' has been deleted.", pending_action: null });
      expect(r.tool_calls).toEqual([{ tool_name: 'delete_task', parameters: { user_id: c.user_id, task_id: ask.pending_action!.task_id }, sequence: 1 }]);
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 1: live confirmation + CONFIRM_NO → CANCEL_PENDING, nothing deleted, and a later "yes" deletes nothing', async () => {
      const c = chat();
      await c.add('buy milk');
      await c.say('delete buy milk');
      const r = await c.say('no');
      expect(r).toMatchObject({ decision_type: 'CANCEL_PENDING', tool_calls: null, response_text: "OK, I won't delete 'buy milk'." });
      expect((await c.say('yes')).decision_type).toBe('RESPOND_ONLY');
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 1: live confirmation + another message → pending cancelled, message classified and handled normally', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      await c.say('delete buy milk');
      const other = await c.say('add task pay rent');
      expect(other).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: "I've added 'pay rent' to your tasks." });
      expect(await intentOf(stack, other.run_id)).toBe('CREATE_TASK');
      // The confirmation was cancelled: "yes" now is plain chat and deletes nothing.
      const yes = await c.say('yes');
      expect(yes).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
      expect(await c.list()).toEqual(['buy milk', 'call mom', 'pay rent']);
    });

    it('Rule 1: live confirmation + another delete → the old confirmation is replaced by the new one', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      await c.say('delete buy milk');
      const again = await c.say('delete call mom');
      expect(again.pending_action?.task_description).toBe('call mom');
      expect((await c.say('yes')).response_text).toBe("'call mom' has been deleted.");
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 1 with a caller-supplied context: message_history sent without pending_confirmation means nothing is pending (decision-context schema), so "yes" deletes nothing, then or later', async () => {
      const c = chat();
      await c.add('buy milk');
      await c.say('delete buy milk');
      const r = await c.say('yes', { message_history: [] });
      expect(r).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
      expect((await c.say('yes')).tool_calls).toBeNull();
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 1: expired confirmation + "yes" → nothing is deleted and the user is told it expired', async () => {
      const c = chat();
      await c.add('buy milk');
      const id = await c.taskId('buy milk');
      const expired = pendingFor(id, 'buy milk', -60_000);
      const r = await c.say('yes', { message_history: [], pending_confirmation: expired });
      expect(r).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
      expect(r.response_text).toBe("That request has expired, so 'buy milk' was not deleted. Ask me again if you still want to delete it.");
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 1: expired confirmation + another message → Rule 1 skipped, message classified normally', async () => {
      const c = chat();
      await c.add('buy milk');
      const id = await c.taskId('buy milk');
      const r = await c.say('show my tasks', { message_history: [], pending_confirmation: pendingFor(id, 'buy milk', -1) });
      expect(r).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: 'Here are your tasks:\n1. buy milk' });
      expect(await intentOf(stack, r.run_id)).toBe('LIST_TASKS');
    });
  });

  describe('Rule 2: intent-to-action mapping', () => {
    it('Rule 2 CREATE_TASK: INVOKE_TOOL with add_task(user_id, description)', async () => {
      const c = chat();
      const r = await c.say('add task water plants');
      expect(r.decision_type).toBe('INVOKE_TOOL');
      expect(r.tool_calls).toEqual([{ tool_name: 'add_task', parameters: { user_id: c.user_id, description: 'water plants' }, sequence: 1 }]);
    });

    it('Rule 2 LIST_TASKS: INVOKE_TOOL with list_tasks(user_id)', async () => {
      const c = chat();
      const r = await c.say('show my tasks');
      expect(r.decision_type).toBe('INVOKE_TOOL');
      expect(r.tool_calls).toEqual([{ tool_name: 'list_tasks', parameters: { user_id: c.user_id }, sequence: 1 }]);
    });

    it('Rule 2 COMPLETE_TASK: list_tasks then complete_task in sequence', async () => {
      const c = chat();
      await c.add('buy milk');
      const r = await c.say('mark buy milk as done');
      expect(r.decision_type).toBe('INVOKE_TOOL');
      expect(r.tool_calls).toEqual([
        { tool_name: 'list_tasks', parameters: { user_id: c.user_id }, sequence: 1 },
        { tool_name: 'complete_task', parameters: { user_id: c.user_id, task_id: expect.stringMatching(/^[0-9a-f-]{36}$/) }, sequence: 2 },
      ]);
      // The log shows the order too: the second call is requested only after the first is recorded.
      const types = await eventTypes(stack, r.run_id);
      expect(types.filter((t) => t.startsWith('ToolCall'))).toEqual(['ToolCallRequested', 'ToolCallRecorded', 'ToolCallRequested', 'ToolCallRecorded']);
      // The reply is sent after the decision was carried out: the run is already complete in the log.
      expect(types.slice(-2)).toEqual(['DecisionRecorded', 'RunCompleted']);
    });

    it('Rule 2 COMPLETE_TASK no match: ASK_CLARIFICATION after list_tasks, nothing completed', async () => {
      const c = chat();
      await c.add('buy milk');
      const r = await c.say('complete walk the dog');
      expect(r).toMatchObject({ decision_type: 'ASK_CLARIFICATION', response_text: null });
      expect(r.tool_calls?.map((t) => t.tool_name)).toEqual(['list_tasks']);
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 2 UPDATE_TASK: list_tasks then update_task(user_id, task_id, new_description) in sequence', async () => {
      const c = chat();
      await c.add('buy milk');
      const r = await c.say('rename buy milk to buy oat milk');
      expect(r.tool_calls).toEqual([
        { tool_name: 'list_tasks', parameters: { user_id: c.user_id }, sequence: 1 },
        { tool_name: 'update_task', parameters: { user_id: c.user_id, task_id: expect.any(String), new_description: 'buy oat milk' }, sequence: 2 },
      ]);
    });

    it('Rule 2 UPDATE_TASK no match: ASK_CLARIFICATION, nothing renamed', async () => {
      const c = chat();
      await c.add('buy milk');
      const r = await c.say('rename walk the dog to walk the cat');
      expect(r).toMatchObject({ decision_type: 'ASK_CLARIFICATION' });
      expect(r.tool_calls?.map((t) => t.tool_name)).toEqual(['list_tasks']);
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 2 DELETE_TASK: list_tasks then REQUEST_CONFIRMATION with pending_action, nothing deleted yet', async () => {
      const c = chat();
      await c.add('buy milk');
      const r = await c.say('delete buy milk');
      expect(r.tool_calls).toEqual([{ tool_name: 'list_tasks', parameters: { user_id: c.user_id }, sequence: 1 }]);
      expect(r.pending_action).toEqual({ action_type: 'DELETE_TASK', task_id: expect.stringMatching(/^[0-9a-f-]{36}$/), task_description: 'buy milk' });
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 2 DELETE_TASK no match: ASK_CLARIFICATION, no pending action', async () => {
      const c = chat();
      await c.add('buy milk');
      const r = await c.say('delete walk the dog');
      expect(r).toMatchObject({ decision_type: 'ASK_CLARIFICATION', pending_action: null });
      // No confirmation is pending: "yes" deletes nothing.
      await c.say('yes');
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 2 GENERAL_CHAT: RESPOND_ONLY, no tool calls (nothing in the log either)', async () => {
      const r = await chat().say('hello');
      expect(r).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null, clarification_question: null });
      expect(r.response_text).toBe('Hi! I can help you add, list, complete, update, or delete tasks. What would you like to do?');
      expect((await eventTypes(stack, r.run_id)).filter((t) => t.startsWith('ToolCall'))).toEqual([]);
    });

    it('Rule 2 AMBIGUOUS: ASK_CLARIFICATION, no tool calls', async () => {
      const r = await chat().say('complete or rename buy milk');
      expect(r).toMatchObject({ decision_type: 'ASK_CLARIFICATION', tool_calls: null });
      expect(r.clarification_question).toBe("I'm not sure what you'd like to do. Would you like to complete a task, update a task, or something else?");
    });
  });

  describe('Rule 3: task reference resolution', () => {
    it('Rule 3.1 exact description match (case-insensitive) wins over partial matches', async () => {
      const c = chat();
      await c.add('buy milk', 'milk');
      const r = await c.say('complete MILK');
      expect(r.response_text).toBe("Done! 'milk' has been marked as completed.");
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Rule 3.2 partial description match (description contains the reference)', async () => {
      const c = chat();
      await c.add('buy oat milk', 'call mom');
      const r = await c.say('complete oat');
      expect(r.response_text).toBe("Done! 'buy oat milk' has been marked as completed.");
    });

    it.each([
      ['first', 'complete the first one', 'buy milk'],
      ['second', 'complete the second', 'call mom'],
      ['last', 'complete last', 'pay rent'],
    ])('Rule 3.3 position "%s"', async (_word, message, expected) => {
      const c = chat();
      await c.add('buy milk', 'call mom', 'pay rent');
      const r = await c.say(message);
      expect(r.response_text).toBe(`Done! '${expected}' has been marked as completed.`);
      expect(await c.list()).toEqual(['buy milk', 'call mom', 'pay rent'].filter((d) => d !== expected));
    });

    it.each([
      ['task 2', 'complete task 2', 'call mom'],
      ['#1', 'complete #1', 'buy milk'],
    ])('Rule 3.4 numeric reference "%s"', async (_ref, message, expected) => {
      const c = chat();
      await c.add('buy milk', 'call mom', 'pay rent');
      const r = await c.say(message);
      expect(r.response_text).toBe(`Done! '${expected}' has been marked as completed.`);
    });

    it('Rule 3 multiple matches → null → clarification listing the matches, nothing completed', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom', 'buy bread');
      const r = await c.say('complete buy');
      expect(r).toMatchObject({ decision_type: 'ASK_CLARIFICATION' });
      expect(r.clarification_question).toBe("I found multiple tasks that match 'buy':\n1. buy milk\n2. buy bread\nWhich one did you mean?");
      expect(await c.list()).toEqual(['buy milk', 'call mom', 'buy bread']);
    });

    it('Rule 3 no matches → null → not-found clarification with the current list', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      const r = await c.say('complete the fourth one');
      expect(shown(r)).toBe("I couldn't find a task matching 'the fourth one'. Here are your current tasks:\n1. buy milk\n2. call mom");
    });

    it('Rule 3 a pick after a multiple-match clarification resolves against the offered list', async () => {
      const c = chat();
      await c.add('buy milk', 'buy bread');
      await c.say('complete buy');
      const r = await c.say('the second one');
      expect(r.response_text).toBe("Done! 'buy bread' has been marked as completed.");
      expect(await c.list()).toEqual(['buy milk']);
    });
  });

  describe('Where the context comes from', () => {
    it('Conversation projection: history and pending confirmation come from the log when omitted (delete → "yes" deletes)', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      expect((await c.say('delete buy milk')).decision_type).toBe('REQUEST_CONFIRMATION');
      expect(await c.say('yes')).toMatchObject({ decision_type: 'EXECUTE_PENDING', response_text: "'buy milk' has been deleted." });
      expect(await c.list()).toEqual(['call mom']);
    });

    it('Conversation projection: a different conversation of the same user has no pending confirmation', async () => {
      const c = chat();
      await c.add('buy milk');
      await c.say('delete buy milk');
      const other = new Conversation(stack, c.user_id);
      expect((await other.say('yes')).decision_type).toBe('RESPOND_ONLY');
      expect(await other.list()).toEqual(['buy milk']);
    });

    it('Conversation projection: a reply over 8000 characters in the history does not break the next turns', async () => {
      const c = chat();
      for (let i = 1; i <= 9; i += 1) await c.add(`${i} ${'x'.repeat(990)}`);
      expect(shown(await c.say('show my tasks')).length).toBeGreaterThan(8000);
      expect((await c.say('add task buy milk')).response_text).toBe("I've added 'buy milk' to your tasks.");
      expect((await c.say('complete buy milk')).response_text).toBe("Done! 'buy milk' has been marked as completed.");
    });

    it('Caller context: caller-sent message_history is honoured (answers the question it contains)', async () => {
      const c = chat();
      const at = new Date().toISOString();
      const history = [{ role: 'user', content: 'add task', timestamp: at }, { role: 'assistant', content: 'What would you like the task to say?', timestamp: at }];
      const r = await c.say('buy eggs', { message_history: history });
      expect(r.response_text).toBe("I've added 'buy eggs' to your tasks.");
    });

    it('Caller context: caller-sent pending_confirmation is honoured ("yes" deletes that task)', async () => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      const id = await c.taskId('call mom');
      const r = await c.say('yes', { pending_confirmation: pendingFor(id, 'call mom') });
      expect(r).toMatchObject({ decision_type: 'EXECUTE_PENDING', response_text: "'call mom' has been deleted." });
      expect(await c.list()).toEqual(['buy milk']);
    });

    it('Caller context: caller-sent context replaces the projection (pending_confirmation: null → "yes" deletes nothing)', async () => {
      const c = chat();
      await c.add('buy milk');
      await c.say('delete buy milk');
      const r = await c.say('yes', { message_history: [], pending_confirmation: null });
      expect(r).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
      expect(await c.list()).toEqual(['buy milk']);
    });
  });
});
