import { classifyIntent } from './classify';
import type { HistoryMessage } from './types';

const h = (...pairs: Array<[HistoryMessage['role'], string]>): HistoryMessage[] =>
  pairs.map(([role, content], i) => ({ role, content, timestamp: `2026-01-03T09:00:0${i}.000Z` }));
const classify = (m: string, history: HistoryMessage[]) => classifyIntent(m, history, { pendingConfirmation: false });

describe('Follow-up answers (history)', () => {
  const askedForText = h(['user', 'add task'], ['assistant', 'What would you like the task to say?']);

  it('Clarification missing description: the next user message is the description', () => {
    expect(classify('Call the plumber', askedForText)).toEqual({
      intent_type: 'CREATE_TASK',
      confidence: 0.9,
      extracted_params: { description: 'Call the plumber' },
    });
  });

  it('Clarification missing description: an answer that looks like a command is still the text ("update my resume")', () => {
    expect(classify('update my resume', askedForText)).toMatchObject({ intent_type: 'CREATE_TASK', extracted_params: { description: 'update my resume' } });
  });

  it('Clarification missing description: the current message already appended to history is not mistaken for the question', () => {
    const withEcho = [...askedForText, { role: 'user' as const, content: 'buy milk', timestamp: 't' }];
    expect(classify('buy milk', withEcho)).toMatchObject({ intent_type: 'CREATE_TASK', extracted_params: { description: 'buy milk' } });
  });

  it('Clarification missing description: "never mind" is not added as a task, nor read as a delete', () => {
    expect(classify('never mind', askedForText).intent_type).toBe('GENERAL_CHAT');
    expect(classify('cancel', askedForText).intent_type).toBe('GENERAL_CHAT');
  });

  it('Clarification missing description: a list request is answered as a list request', () => {
    expect(classify('show my tasks', askedForText).intent_type).toBe('LIST_TASKS');
  });

  it('Clarification missing description: only the latest assistant message counts', () => {
    const later = h(
      ['user', 'add task'],
      ['assistant', 'What would you like the task to say?'],
      ['user', 'buy milk'],
      ['assistant', "I've added 'buy milk' to your tasks."],
    );
    expect(classify('hello', later).intent_type).toBe('GENERAL_CHAT');
  });

  it('Clarification multiple matches: "2" picks the second listed task for the original action', () => {
    const history = h(
      ['user', 'delete milk'],
      ['assistant', "I found multiple tasks that match 'milk':\n1. buy milk\n2. buy oat milk\nWhich one did you mean?"],
    );
    expect(classify('2', history)).toMatchObject({ intent_type: 'DELETE_TASK', extracted_params: { task_reference: 'buy oat milk' } });
    expect(classify('the first one', history)).toMatchObject({ intent_type: 'DELETE_TASK', extracted_params: { task_reference: 'buy milk' } });
  });

  it('Clarification multiple matches: an update keeps its new text when the task is picked', () => {
    const history = h(
      ['user', 'rename milk to buy bread'],
      ['assistant', "I found multiple tasks that match 'milk':\n1. buy milk\n2. buy oat milk\nWhich one did you mean?"],
    );
    expect(classify('oat', history)).toMatchObject({
      intent_type: 'UPDATE_TASK',
      extracted_params: { task_reference: 'buy oat milk', new_description: 'buy bread' },
    });
  });

  it('Clarification no match: picking from the shown list completes the right task', () => {
    const history = h(
      ['user', 'done with the dishes'],
      ['assistant', "I couldn't find a task matching 'the dishes'. Here are your current tasks:\n1. call mom\n2. wash dishes"],
    );
    expect(classify('2', history)).toMatchObject({ intent_type: 'COMPLETE_TASK', extracted_params: { task_reference: 'wash dishes' } });
  });

  it('Clarification which task (ours): a new command is handled on its own', () => {
    const history = h(['user', 'done'], ['assistant', 'Which task do you mean? Here are your current tasks:\n1. call mom']);
    expect(classify('add task buy milk', history)).toMatchObject({ intent_type: 'CREATE_TASK', extracted_params: { description: 'buy milk' } });
  });

  it('Clarification new description (ours): the answer is the new text of the named task', () => {
    const history = h(['user', 'rename buy milk'], ['assistant', "What should 'buy milk' say instead?"]);
    expect(classify('buy oat milk', history)).toMatchObject({
      intent_type: 'UPDATE_TASK',
      extracted_params: { task_reference: 'buy milk', new_description: 'buy oat milk' },
    });
  });

  it('Pronouns: "delete it" after a completion targets that task; unknown "it" becomes no reference', () => {
    const history = h(['user', 'done with 1'], ['assistant', "Done! 'call mom' has been marked as completed."]);
    expect(classify('delete it', history)).toMatchObject({ intent_type: 'DELETE_TASK', extracted_params: { task_reference: 'call mom' } });
    expect(classify('delete it', [])).toMatchObject({ intent_type: 'DELETE_TASK', extracted_params: { task_reference: null } });
  });
});
