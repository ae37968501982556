import { Conversation, FakeGateway, shown, tasks } from './spec-helpers';
import { validateDecision } from './validate-output';

function chat(store = tasks('call mom', 'buy milk', 'buy oat milk')) {
  const c = new Conversation(new FakeGateway(store));
  const say = (message: string, now?: string) => {
    const t = c.say(message, now);
    expect(validateDecision(t.decision)).toEqual([]);
    return shown(t.decision);
  };
  const open = () => c.gateway.store.filter((t) => t.status === 'pending').map((t) => t.description);
  return { c, say, open };
}

describe('Whole flows (scripted gateway)', () => {
  it('Flow add → list → complete by position → list', () => {
    const { say, open } = chat([]);
    expect(say('add a task: buy milk')).toBe("I've added 'buy milk' to your tasks.");
    expect(say("don't forget to call mom")).toBe("I've added 'call mom' to your tasks.");
    expect(say('what do I need to do?')).toBe('Here are your tasks:\n1. buy milk\n2. call mom');
    expect(say('I finished the first one')).toBe("Done! 'buy milk' has been marked as completed.");
    expect(open()).toEqual(['call mom']);
    expect(say('show tasks')).toBe('Here are your tasks:\n1. call mom');
  });

  it('Flow delete → yes: the task is deleted only after confirmation', () => {
    const { c, say, open } = chat();
    expect(say('get rid of #2')).toBe(
      "Are you sure you want to delete 'buy milk'? This cannot be undone. Reply 'yes' to confirm or 'no' to cancel.",
    );
    expect(open()).toHaveLength(3);
    expect(c.pending?.task_description).toBe('buy milk');
    expect(say('yes')).toBe("'buy milk' has been deleted.");
    expect(open()).toEqual(['call mom', 'buy oat milk']);
    expect(c.pending).toBeNull();
  });

  it('Flow delete → cancel: "cancel" inside the confirmation keeps the task', () => {
    const { c, say, open } = chat();
    say('remove call mom');
    expect(say('cancel')).toBe("OK, I won't delete 'call mom'.");
    expect(open()).toHaveLength(3);
    expect(c.pending).toBeNull();
    expect(say('yes')).not.toMatch(/deleted/);
  });

  it('Flow delete → "yes" after 6 minutes: expired, nothing deleted', () => {
    const { say, open } = chat();
    say('delete call mom', '2026-01-03T10:00:00.000Z');
    expect(say('yes', '2026-01-03T10:06:00.000Z')).toMatch(/expired/);
    expect(open()).toHaveLength(3);
  });

  it('Flow delete → something else: the pending delete is dropped, the new request handled', () => {
    const { c, say, open } = chat();
    say('delete call mom');
    expect(say('add task water plants')).toBe("I've added 'water plants' to your tasks.");
    expect(c.pending).toBeNull();
    expect(say('yes')).not.toMatch(/deleted/);
    expect(open()).toContain('call mom');
  });

  it('Flow "add task" → question → answer becomes the task', () => {
    const { say, open } = chat([]);
    expect(say('add task')).toBe('What would you like the task to say?');
    expect(say('Call the plumber')).toBe("I've added 'Call the plumber' to your tasks.");
    expect(open()).toEqual(['Call the plumber']);
  });

  it('Flow multiple matches → "2" → confirmation for the picked task → yes', () => {
    const { say, open } = chat();
    expect(say('delete milk')).toBe("I found multiple tasks that match 'milk':\n1. buy milk\n2. buy oat milk\nWhich one did you mean?");
    expect(say('2')).toMatch(/^Are you sure you want to delete 'buy oat milk'\?/);
    expect(say('go ahead')).toBe("'buy oat milk' has been deleted.");
    expect(open()).toEqual(['call mom', 'buy milk']);
  });

  it('Flow not found → pick from the shown list', () => {
    const { say, open } = chat();
    expect(say('done with the dishes')).toMatch(/^I couldn't find a task matching 'the dishes'/);
    expect(say('the first one')).toBe("Done! 'call mom' has been marked as completed.");
    expect(open()).toEqual(['buy milk', 'buy oat milk']);
  });

  it('Flow rename where the task text itself contains "to"', () => {
    const { say } = chat(tasks('go to the store'));
    expect(say('rename go to the store to go to the mall')).toBe("Updated 'go to the store' to 'go to the mall'.");
  });

  it('Flow add → "make it …" updates the task just added', () => {
    const { say, open } = chat([]);
    say('remind me to buy milk');
    expect(say('make it buy oat milk')).toBe("Updated 'buy milk' to 'buy oat milk'.");
    expect(open()).toEqual(['buy oat milk']);
  });

  it('Flow rename without new text → question → answer', () => {
    const { say, open } = chat();
    expect(say('rename call mom')).toBe("What should 'call mom' say instead?");
    expect(say('call mom and dad')).toBe("Updated 'call mom' to 'call mom and dad'.");
    expect(open()[0]).toBe('call mom and dad');
  });
});
