import { nextStep } from './next-step';
import { validateDecision } from './validate-output';
import type { DecisionContext, ToolOutcome, UserIntent } from './types';

const now = '2026-01-01T00:01:00.000Z';
const pending = { action_type: 'DELETE_TASK' as const, task_id: '6f1c2a4e-0000-4000-8000-000000000001', task_description: 'water plants', created_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:05:00.000Z' };
const ctx: DecisionContext = { user_id: 'u1', message: 'yes', conversation_id: '6f1c2a4e-0000-4000-8000-0000000000aa', message_history: [], pending_confirmation: pending };
const yes: UserIntent = { intent_type: 'CONFIRM_YES', confidence: 0.95, extracted_params: null };

describe('Rule 1 CONFIRM_YES when the pending task is gone', () => {
  it('Validation task_id: a confirmed delete whose task no longer exists (or is not the user\'s) answers with the not-found template and the current list', () => {
    const first = nextStep({ context: ctx, intent: yes, now }, []);
    expect(first).toMatchObject({ kind: 'invoke', call: { tool_name: 'delete_task', sequence: 1 } });
    const gone: ToolOutcome = { call: (first as { call: ToolOutcome['call'] }).call, status: 'failed', error_code: 'NOT_FOUND' };
    const second = nextStep({ context: ctx, intent: yes, now }, [gone]);
    expect(second).toMatchObject({ kind: 'invoke', call: { tool_name: 'list_tasks', sequence: 2 } });
    const listed: ToolOutcome = { call: (second as { call: ToolOutcome['call'] }).call, status: 'ok', result: { tasks: [{ task_id: '6f1c2a4e-0000-4000-8000-000000000002', description: 'buy milk', status: 'pending', created_at: now }] } };
    const last = nextStep({ context: ctx, intent: yes, now }, [gone, listed]);
    expect(last).toMatchObject({ kind: 'done', conversation_effect: 'clear_pending', decision: { decision_type: 'EXECUTE_PENDING', response_text: "I couldn't find a task matching 'water plants'. Here are your current tasks:\n1. buy milk" } });
    expect(validateDecision((last as { decision: Parameters<typeof validateDecision>[0] }).decision)).toEqual([]);
  });
});
