import { resolveTaskReference } from './resolve';
import { tasks } from './spec-helpers';

const list = tasks('call mom', 'buy milk', 'buy oat milk', 'Finish the report');
const picked = (reference: string) => {
  const r = resolveTaskReference(reference, list);
  return r.kind === 'match' ? r.task.description : r.kind === 'multiple' ? r.tasks.map((t) => t.description) : null;
};

describe('Rule 3: Task Reference Resolution', () => {
  it('Rule 3.1 exact: case-insensitive description match', () => {
    expect(resolveTaskReference('BUY MILK', list)).toMatchObject({ kind: 'match', rule: 'exact', task: { description: 'buy milk' } });
  });

  it('Rule 3.1 exact: wins over a partial match that would be ambiguous', () => {
    // "milk" is contained in both tasks; the exact one must win before partial is tried.
    expect(resolveTaskReference('milk', tasks('buy milk', 'milk'))).toMatchObject({ kind: 'match', rule: 'exact', task: { description: 'milk' } });
  });

  it('Rule 3.1 exact: quotes and "the … task" padding are ignored', () => {
    expect(picked("'call mom'")).toBe('call mom');
    expect(picked('the call mom task')).toBe('call mom');
  });

  it('Rule 3.2 partial: the description contains the reference', () => {
    expect(resolveTaskReference('report', list)).toMatchObject({ kind: 'match', rule: 'partial', task: { description: 'Finish the report' } });
  });

  it('Rule 3.2 partial: several tasks contain it → multiple (needs clarification)', () => {
    expect(resolveTaskReference('milk', list)).toMatchObject({ kind: 'multiple', rule: 'partial' });
    expect(picked('milk')).toEqual(['buy milk', 'buy oat milk']);
  });

  it('Rule 3.2 partial: "2" is not matched inside "buy 2 apples" (numbers are positions)', () => {
    const withNumber = tasks('buy 2 apples', 'call mom');
    const r = resolveTaskReference('2', withNumber);
    expect(r).toMatchObject({ kind: 'match', rule: 'numeric', task: { description: 'call mom' } });
  });

  it.each([
    ['first', 'call mom'],
    ['the first one', 'call mom'],
    ['second', 'buy milk'],
    ['the 2nd one', 'buy milk'],
    ['third task', 'buy oat milk'],
    ['last', 'Finish the report'],
    ['the last task', 'Finish the report'],
    ['second to last', 'buy oat milk'],
  ])('Rule 3.3 position: "%s" → %s', (reference, description) => {
    expect(resolveTaskReference(reference, list)).toMatchObject({ kind: 'match', rule: 'position', task: { description } });
  });

  it.each([
    ['task 1', 'call mom'],
    ['#2', 'buy milk'],
    ['2', 'buy milk'],
    ['task #4', 'Finish the report'],
    ['number 3', 'buy oat milk'],
    ['task two', 'buy milk'],
  ])('Rule 3.4 numeric: "%s" → %s', (reference, description) => {
    expect(resolveTaskReference(reference, list)).toMatchObject({ kind: 'match', rule: 'numeric', task: { description } });
  });

  it('Rule 3: no match anywhere → none (not found)', () => {
    expect(resolveTaskReference('walk the dog', list)).toEqual({ kind: 'none' });
    expect(resolveTaskReference('task 9', list)).toEqual({ kind: 'none' });
    expect(resolveTaskReference('fifth', list)).toEqual({ kind: 'none' });
    expect(resolveTaskReference('first', [])).toEqual({ kind: 'none' });
  });

  it('Rule 3.1 exact: two tasks with the same text → multiple', () => {
    expect(resolveTaskReference('call mom', tasks('call mom', 'call mom'))).toMatchObject({ kind: 'multiple', rule: 'exact' });
  });
});
