/**
 * Contract 000, table "Intent Recognition Patterns": every row, every trigger phrase, over real NATS
 * against the running services. The classified intent is read back from the run's DecisionRecorded event.
 */
import { TestStack } from './support/stack';
import { Conversation, intentOf, pendingFor, shown } from './support/task-assistant';

jest.setTimeout(120_000);

describe('Contract 000 intent table over the bus', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await TestStack.shared();
  });
  afterAll(async () => stack?.stop());

  const chat = () => new Conversation(stack);

  it.each([
    ['add task', 'add task buy milk', 'buy milk'],
    ['remind me', 'remind me to call mom', 'call mom'],
    ['create', 'create pay rent', 'pay rent'],
    ['I need to', 'I need to book flights', 'book flights'],
    ["don't forget to", "don't forget to feed the cat", 'feed the cat'],
    ['todo:', 'todo: renew passport', 'renew passport'],
  ])('Intent table CREATE_TASK "%s": "%s" adds the task', async (_trigger, message, description) => {
    const c = chat();
    const r = await c.say(message);
    expect(r).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: `I've added '${description}' to your tasks.` });
    expect(r.tool_calls).toEqual([{ tool_name: 'add_task', parameters: { user_id: c.user_id, description }, sequence: 1 }]);
    expect(await intentOf(stack, r.run_id)).toBe('CREATE_TASK');
    expect(await c.list()).toEqual([description]);
  });

  it.each(['show tasks', 'what are my tasks', 'my list', 'what do I need to do', 'show me'])(
    'Intent table LIST_TASKS "%s": lists the tasks',
    async (message) => {
      const c = chat();
      await c.add('buy milk', 'call mom');
      const r = await c.say(message);
      expect(r).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: 'Here are your tasks:\n1. buy milk\n2. call mom' });
      expect(r.tool_calls).toEqual([{ tool_name: 'list_tasks', parameters: { user_id: c.user_id }, sequence: 1 }]);
      expect(await intentOf(stack, r.run_id)).toBe('LIST_TASKS');
    },
  );

  it.each([
    ['done', 'done with buy milk', 'buy milk'],
    ['finished', 'finished call mom', 'call mom'],
    ['completed', 'completed pay rent', 'pay rent'],
    ['mark as done', 'mark as done: water plants', 'water plants'],
    ['I did', 'I did the laundry', 'do the laundry'],
    ['check off', 'check off renew passport', 'renew passport'],
  ])('Intent table COMPLETE_TASK "%s": "%s" completes the task', async (_trigger, message, description) => {
    const c = chat();
    await c.add('keep me', description);
    const r = await c.say(message);
    expect(r).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: `Done! '${description}' has been marked as completed.` });
    expect(r.tool_calls?.map((t) => t.tool_name)).toEqual(['list_tasks', 'complete_task']);
    expect(await intentOf(stack, r.run_id)).toBe('COMPLETE_TASK');
    expect(await c.list()).toEqual(['keep me']);
  });

  it.each([
    ['change', 'change buy milk to buy oat milk', 'buy milk', 'buy oat milk'],
    ['update', 'update call mom to call mom tonight', 'call mom', 'call mom tonight'],
    ['modify', 'modify pay rent to pay rent early', 'pay rent', 'pay rent early'],
    ['edit', 'edit water plants to water the garden', 'water plants', 'water the garden'],
    ['rename', 'rename book flights to book trains', 'book flights', 'book trains'],
  ])('Intent table UPDATE_TASK "%s": "%s" renames the task', async (_trigger, message, before, after) => {
    const c = chat();
    await c.add(before);
    const r = await c.say(message);
    expect(r).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: `Updated '${before}' to '${after}'.` });
    expect(r.tool_calls?.map((t) => t.tool_name)).toEqual(['list_tasks', 'update_task']);
    expect(await intentOf(stack, r.run_id)).toBe('UPDATE_TASK');
    expect(await c.list()).toEqual([after]);
  });

  it('Intent table UPDATE_TASK "make it": "make it …" renames the task the assistant just mentioned', async () => {
    const c = chat();
    await c.add('other task', 'buy bread');
    const r = await c.say('make it buy rye bread');
    expect(r).toMatchObject({ decision_type: 'INVOKE_TOOL', response_text: "Updated 'buy bread' to 'buy rye bread'." });
    expect(await intentOf(stack, r.run_id)).toBe('UPDATE_TASK');
    expect(await c.list()).toEqual(['other task', 'buy rye bread']);
  });

  it.each([
    ['delete', 'delete buy milk', 'buy milk'],
    ['remove', 'remove call mom', 'call mom'],
    ['cancel', 'cancel pay rent', 'pay rent'],
    ['get rid of', 'get rid of water plants', 'water plants'],
    ['forget', 'forget book flights', 'book flights'],
  ])('Intent table DELETE_TASK "%s": "%s" asks to confirm the delete', async (_trigger, message, description) => {
    const c = chat();
    await c.add(description);
    const r = await c.say(message);
    expect(r).toMatchObject({
      decision_type: 'REQUEST_CONFIRMATION',
      response_text: `Are you sure you want to delete '${description}'? This cannot be undone. Reply 'yes' to confirm or 'no' to cancel.`,
      pending_action: { action_type: 'DELETE_TASK', task_description: description },
    });
    expect(await intentOf(stack, r.run_id)).toBe('DELETE_TASK');
    expect(await c.list()).toEqual([description]);
  });

  it('Intent table GENERAL_CHAT: no task pattern → RESPOND_ONLY without tools', async () => {
    const c = chat();
    const r = await c.say("what's the weather like");
    expect(r).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null, pending_action: null });
    expect(r.response_text).toBe('I can help you manage your tasks: add, list, complete, update, or delete them. What would you like to do?');
    expect(await intentOf(stack, r.run_id)).toBe('GENERAL_CHAT');
  });

  it('Intent table AMBIGUOUS: two intents possible → clarification naming both', async () => {
    const c = chat();
    await c.add('buy milk');
    const r = await c.say('delete or complete buy milk');
    expect(r).toMatchObject({ decision_type: 'ASK_CLARIFICATION', tool_calls: null, response_text: null });
    expect(r.clarification_question).toBe("I'm not sure what you'd like to do. Would you like to delete a task, complete a task, or something else?");
    expect(await intentOf(stack, r.run_id)).toBe('AMBIGUOUS');
    expect(await c.list()).toEqual(['buy milk']);
  });

  it.each(['yes', 'confirm', 'do it', 'go ahead', 'sure', 'ok'])(
    'Intent table CONFIRM_YES "%s": answers a pending delete with yes (task deleted)',
    async (message) => {
      const c = chat();
      await c.add('keep me', 'buy milk');
      await c.say('delete buy milk');
      const r = await c.say(message);
      expect(r).toMatchObject({ decision_type: 'EXECUTE_PENDING', response_text: "'buy milk' has been deleted." });
      expect(await intentOf(stack, r.run_id)).toBe('CONFIRM_YES');
      expect(await c.list()).toEqual(['keep me']);
    },
  );

  it.each(['no', 'cancel', "don't", 'never mind', 'stop'])(
    'Intent table CONFIRM_NO "%s": answers a pending delete with no (task kept)',
    async (message) => {
      const c = chat();
      await c.add('buy milk');
      const id = await c.taskId('buy milk');
      // Caller-sent pending confirmation: the row is about the phrase, not about where the pending comes from.
      const r = await c.say(message, { message_history: [], pending_confirmation: pendingFor(id, 'buy milk') });
      expect(r).toMatchObject({ decision_type: 'CANCEL_PENDING', tool_calls: null, response_text: "OK, I won't delete 'buy milk'." });
      expect(await intentOf(stack, r.run_id)).toBe('CONFIRM_NO');
      expect(await c.list()).toEqual(['buy milk']);
    },
  );

  it('Intent table CONFIRM_YES / CONFIRM_NO only exist while a confirmation is pending ("cancel buy milk" is a delete)', async () => {
    const c = chat();
    await c.add('buy milk');
    const yes = await c.say('yes');
    expect(yes).toMatchObject({ decision_type: 'RESPOND_ONLY', tool_calls: null });
    expect(await intentOf(stack, yes.run_id)).toBe('GENERAL_CHAT');
    const cancel = await c.say('cancel buy milk');
    expect(cancel.decision_type).toBe('REQUEST_CONFIRMATION');
    expect(shown(cancel)).toContain("delete 'buy milk'");
    expect(await c.list()).toEqual(['buy milk']);
  });
});
