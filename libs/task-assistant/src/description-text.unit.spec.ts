import { compileSchema } from '@runledger/contract-schemas';
import { Conversation, FakeGateway, shown, tasks } from './spec-helpers';
import { hasVisibleText } from './text';
import { TASK_TOOL_SCHEMAS } from './tool-schemas';

/** Text that shows nothing: zero-width space and joiners, word joiner, soft hyphen, bidi marks, Hangul filler, BOM, no-break and ideographic spaces. */
const INVISIBLE = ['\u200b', '\u200b\u2060', '\u00ad', '\u200e\u200f', '\u3164', '\ufeff', '\u00a0\u3000', '\u200c\u200d', '\u{E0020}'];

describe('Contract 000 task description (Validation: task description 1-1000 chars; "Missing description")', () => {
  const turn = (message: string, ...before: string[]) => {
    const c = new Conversation(new FakeGateway(tasks('call mom')));
    for (const m of before) c.say(m);
    const t = c.say(message);
    return { decision: t.decision, shown: shown(t.decision), store: c.gateway.store.map((s) => s.description) };
  };

  it.each(INVISIBLE)('Contract 000 Missing description: a description of invisible characters only (%j) is no description: "What would you like the task to say?", no task added', (blank) => {
    for (const message of [`add task ${blank}`, `remind me to ${blank}`, `todo: '${blank}'`]) {
      const r = turn(message);
      expect({ message, ...r.decision }).toMatchObject({ message, decision_type: 'ASK_CLARIFICATION', clarification_question: 'What would you like the task to say?', tool_calls: null });
      expect(r.store).toEqual(['call mom']);
    }
    // The answer to that question counts the same way (a message of white space alone is refused before: invalid input).
    if (blank.trim()) expect(turn(blank, 'add task').shown).toBe('What would you like the task to say?');
  });

  it('Contract 000 Missing description: an update to invisible characters only keeps the task and asks what it should say', () => {
    const r = turn('rename call mom to \u200b\u2060');
    expect(r.decision.decision_type).toBe('ASK_CLARIFICATION');
    expect(r.decision.tool_calls?.map((c) => c.tool_name)).toEqual(['list_tasks']);
    expect(r.store).toEqual(['call mom']);
  });

  it('Contract 000 Validation: text that shows something is a description, joiners and marks inside it included', () => {
    expect(turn('add task 👨\u200d👩\u200d👧 dinner').shown).toBe("I've added '👨\u200d👩\u200d👧 dinner' to your tasks.");
    expect(turn('add task \u200bbuy milk').store).toEqual(['call mom', '\u200bbuy milk']);
    for (const text of ['.', 'é', '\u0645\u200c\u0645', '\u2800x']) expect(hasVisibleText(text)).toBe(true);
    for (const text of [...INVISIBLE, '', ' \t\n', '\u2800']) expect(hasVisibleText(text)).toBe(false);
  });

  it('Contract 000 Validation at the tool gateway: add_task and update_task schemas refuse a description of invisible characters only (one rule with the engine)', () => {
    const add = compileSchema(TASK_TOOL_SCHEMAS.add_task);
    const update = compileSchema(TASK_TOOL_SCHEMAS.update_task);
    const task_id = '00000000-0000-4000-8000-000000000001';
    for (const blank of INVISIBLE) {
      expect(add({ user_id: 'u', description: blank })).toBe(false);
      expect(update({ user_id: 'u', task_id, new_description: blank })).toBe(false);
    }
    expect(add({ user_id: 'u', description: 'buy milk' })).toBe(true);
    expect(update({ user_id: 'u', task_id, new_description: '\u200bbuy oat milk' })).toBe(true);
  });
});
