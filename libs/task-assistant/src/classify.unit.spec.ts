import { classifyIntent } from './classify';
import type { HistoryMessage, IntentType } from './types';

const free = (m: string, history: HistoryMessage[] = []) => classifyIntent(m, history, { pendingConfirmation: false });
const pending = (m: string) => classifyIntent(m, [], { pendingConfirmation: true });

describe('Intent table CREATE_TASK', () => {
  it.each([
    ['add task', 'add task buy milk', 'buy milk'],
    ['add task', 'add a task: buy milk', 'buy milk'],
    ['add task', 'Add a new task - renew passport', 'renew passport'],
    ['remind me', 'remind me to call mom', 'call mom'],
    ['remind me', 'Remind me to call Mom tomorrow', 'call Mom tomorrow'],
    ['create', 'create a task to water the plants', 'water the plants'],
    ['create', 'create a reminder: dentist at 5', 'dentist at 5'],
    ['I need to', 'I need to buy milk', 'buy milk'],
    ['I need to', 'Tomorrow I need to call the bank', 'call the bank'],
    ["don't forget to", "don't forget to buy milk", 'buy milk'],
    ["don't forget to", 'Don\u2019t forget to buy milk!', 'buy milk'],
    ['todo:', 'todo: buy milk', 'buy milk'],
  ])('Intent table CREATE_TASK: "%s" — "%s" → description "%s"', (_trigger, message, description) => {
    const intent = free(message);
    expect(intent.intent_type).toBe('CREATE_TASK');
    expect(intent.extracted_params).toEqual({ description });
  });

  it('Intent table CREATE_TASK: quotes and politeness are stripped from the description', () => {
    expect(free('Could you please add task "buy milk" to my list?').extracted_params).toEqual({ description: 'buy milk' });
  });

  it('Intent table CREATE_TASK: "add task" alone has an empty description (asks what to write)', () => {
    expect(free('add task')).toMatchObject({ intent_type: 'CREATE_TASK', extracted_params: { description: '' } });
  });

  it('Intent table CREATE_TASK: trigger words inside the task text do not change the intent', () => {
    expect(free('remind me to delete old emails')).toMatchObject({
      intent_type: 'CREATE_TASK',
      extracted_params: { description: 'delete old emails' },
    });
  });
});

describe('Intent table LIST_TASKS', () => {
  it.each([['show tasks'], ['what are my tasks'], ['What are my tasks?'], ['my list'], ['what do I need to do'], ['show me'], ["what's on my list"]])(
    'Intent table LIST_TASKS: "%s"',
    (message) => {
      expect(free(message)).toMatchObject({ intent_type: 'LIST_TASKS', extracted_params: null });
    },
  );
});

describe('Intent table COMPLETE_TASK', () => {
  it.each([
    ['done', 'done with task 2', 'task 2'],
    ['done', 'buy milk done', 'buy milk'],
    ['finished', 'I finished the first one', 'the first one'],
    ['completed', 'completed buy milk', 'buy milk'],
    ['mark as done', 'mark buy milk as done', 'buy milk'],
    ['mark as done', 'mark as done: call mom', 'call mom'],
    ['I did', 'I did the laundry', 'the laundry'],
    ['check off', 'check off #2', '#2'],
    ['is done', "'buy milk' is done", 'buy milk'],
  ])('Intent table COMPLETE_TASK: "%s" — "%s" → task_reference "%s"', (_trigger, message, task_reference) => {
    expect(free(message)).toMatchObject({ intent_type: 'COMPLETE_TASK', extracted_params: { task_reference } });
  });

  it('Intent table COMPLETE_TASK: "done" alone has no task reference', () => {
    expect(free('done')).toMatchObject({ intent_type: 'COMPLETE_TASK', extracted_params: { task_reference: null } });
  });

  it('Intent table COMPLETE_TASK: a negated completion is not a completion', () => {
    expect(free("I haven't finished the report").intent_type).toBe('GENERAL_CHAT');
    expect(free('the report is not done yet').intent_type).not.toBe('COMPLETE_TASK');
  });
});

describe('Intent table UPDATE_TASK', () => {
  it.each([
    ['change', 'change task 1 to call dad', 'task 1', 'call dad'],
    ['update', "update 'x' to 'y'", 'x', 'y'],
    ['modify', 'modify buy milk to buy bread', 'buy milk', 'buy bread'],
    ['edit', 'edit the first one to say call dad', 'the first one', 'call dad'],
    ['rename', 'rename buy milk to buy oat milk', 'buy milk', 'buy oat milk'],
  ])('Intent table UPDATE_TASK: "%s" — "%s" → "%s" / "%s"', (_trigger, message, task_reference, new_description) => {
    expect(free(message)).toMatchObject({ intent_type: 'UPDATE_TASK', extracted_params: { task_reference, new_description } });
  });

  it('Intent table UPDATE_TASK: "make it" refers to the task the assistant just named', () => {
    const history: HistoryMessage[] = [
      { role: 'user', content: 'add task buy milk', timestamp: 't1' },
      { role: 'assistant', content: "I've added 'buy milk' to your tasks.", timestamp: 't2' },
    ];
    expect(free('make it buy oat milk', history)).toMatchObject({
      intent_type: 'UPDATE_TASK',
      extracted_params: { task_reference: 'buy milk', new_description: 'buy oat milk' },
    });
  });

  it('Intent table UPDATE_TASK: "rename X" without new text keeps new_description null', () => {
    expect(free('rename buy milk')).toMatchObject({
      intent_type: 'UPDATE_TASK',
      extracted_params: { task_reference: 'buy milk', new_description: null },
    });
  });

  it('Intent table UPDATE_TASK: every possible cut of "A to B to C" is offered for resolution', () => {
    const p = free('rename go to the store to go to the mall').extracted_params as Record<string, unknown>;
    expect(p.candidate_splits).toContainEqual({ task_reference: 'go to the store', new_description: 'go to the mall' });
  });
});

describe('Intent table DELETE_TASK', () => {
  it.each([
    ['delete', 'delete the last task', 'the last task'],
    ['remove', 'remove buy milk', 'buy milk'],
    ['remove', 'remove buy milk from my list', 'buy milk'],
    ['cancel', 'cancel the dentist appointment', 'the dentist appointment'],
    ['get rid of', 'get rid of #3', '#3'],
    ['forget', 'forget the gym', 'the gym'],
  ])('Intent table DELETE_TASK: "%s" — "%s" → task_reference "%s"', (_trigger, message, task_reference) => {
    expect(free(message)).toMatchObject({ intent_type: 'DELETE_TASK', extracted_params: { task_reference } });
  });

  it('Intent table DELETE_TASK: "cancel" outside a pending confirmation is a delete', () => {
    expect(free('cancel').intent_type).toBe('DELETE_TASK');
  });
});

describe('Intent table GENERAL_CHAT / AMBIGUOUS', () => {
  it.each([['hello there'], ["what's the weather like?"], ['I want a sandwich'], ['yes']])(
    'Intent table GENERAL_CHAT: "%s" has no task pattern',
    (message) => {
      expect(free(message)).toMatchObject({ intent_type: 'GENERAL_CHAT', extracted_params: null });
    },
  );

  it.each([
    ['show me how to delete a task', ['LIST_TASKS', 'DELETE_TASK']],
    ['should I delete or complete buy milk', ['DELETE_TASK', 'COMPLETE_TASK']],
  ])('Intent table AMBIGUOUS: "%s" → possible_intents %j', (message, possible) => {
    expect(free(message)).toMatchObject({ intent_type: 'AMBIGUOUS', extracted_params: { possible_intents: possible } });
  });

  it('Intent table AMBIGUOUS: a classifier that fails internally degrades to AMBIGUOUS', () => {
    const broken = new Proxy([] as HistoryMessage[], {
      get() {
        throw new Error('boom');
      },
    });
    expect(classifyIntent('add task buy milk', broken, { pendingConfirmation: false })).toEqual({
      intent_type: 'AMBIGUOUS',
      confidence: null,
      extracted_params: { possible_intents: [] },
    });
  });
});

describe('Intent table CONFIRM_YES / CONFIRM_NO', () => {
  it.each([['yes'], ['confirm'], ['do it'], ['go ahead'], ['sure'], ['ok'], ['Yes please!'], ['yes, delete it']])(
    'Intent table CONFIRM_YES: "%s" while a confirmation is pending',
    (message) => {
      expect(pending(message).intent_type).toBe('CONFIRM_YES');
    },
  );

  it.each([['no'], ['cancel'], ["don't"], ['never mind'], ['stop'], ["no, don't do it"]])(
    'Intent table CONFIRM_NO: "%s" while a confirmation is pending',
    (message) => {
      expect(pending(message).intent_type).toBe('CONFIRM_NO');
    },
  );

  it('Intent table CONFIRM_YES: never produced without a pending confirmation', () => {
    const produced: IntentType[] = ['yes', 'ok', 'sure', 'go ahead', 'no', 'stop'].map((m) => free(m).intent_type);
    expect(produced.filter((t) => t === 'CONFIRM_YES' || t === 'CONFIRM_NO')).toEqual([]);
  });

  it('Intent table CONFIRM_YES: words match on boundaries — "book" is not "ok"', () => {
    expect(pending('book a table for two').intent_type).toBe('GENERAL_CHAT');
  });

  it('Intent table CONFIRM_NO: "don\'t forget to …" while pending is a new task, not a "no"', () => {
    expect(pending("don't forget to buy milk")).toMatchObject({ intent_type: 'CREATE_TASK', extracted_params: { description: 'buy milk' } });
  });

  it('Intent table CONFIRM_NO: "cancel buy milk" while pending is a new delete, not an answer', () => {
    expect(pending('cancel buy milk')).toMatchObject({ intent_type: 'DELETE_TASK', extracted_params: { task_reference: 'buy milk' } });
  });

  it('Intent table AMBIGUOUS: "yes… no" while pending is neither answer', () => {
    expect(pending('yes no')).toMatchObject({ intent_type: 'AMBIGUOUS', extracted_params: { possible_intents: ['CONFIRM_YES', 'CONFIRM_NO'] } });
  });
});

describe('Word boundaries and confidence', () => {
  it('Intent table COMPLETE_TASK: "done" does not fire inside "don\'t"', () => {
    expect(free("I don't want milk").intent_type).toBe('GENERAL_CHAT');
  });

  it('Intent table UPDATE_TASK: "edit" does not fire inside "credit"', () => {
    expect(free('I paid the credit card bill').intent_type).toBe('GENERAL_CHAT');
  });

  it('Intent table DELETE_TASK: "forget" does not fire inside "forgetful"', () => {
    expect(free('I am so forgetful lately').intent_type).toBe('GENERAL_CHAT');
  });

  it('Intent table: confidence is always within [0, 1]', () => {
    const messages = ['add task x', 'show tasks', 'done', 'rename a to b', 'delete #1', 'hi', 'show me how to delete a task', ''];
    for (const m of messages) {
      const c = free(m).confidence;
      expect(c === null || (c >= 0 && c <= 1)).toBe(true);
    }
  });

  it('Intent table: a clear command is more confident than a lone trigger word', () => {
    expect(free('mark buy milk as done').confidence as number).toBeGreaterThan(free('buy milk done').confidence as number);
  });
});
