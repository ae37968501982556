import { buildAuditRecord } from './audit';
import { createPendingConfirmation, isPendingLive } from './pending';
import { CONVERSATION, USER, uuid } from './spec-helpers';
import { TASK_TOOL_SCHEMAS } from './tool-schemas';
import type { AgentDecision, DecisionContext } from './types';
import { validateContext } from './validate-input';
import { validateDecision } from './validate-output';

const good = { user_id: USER, message: 'show tasks', conversation_id: CONVERSATION };
/** A well-formed request by the transport's rules (the gateway hands in DecisionContextDto's check). */
const wellFormed = (): string[] => [];

describe('Input validation', () => {
  it.each([[{ ...good, user_id: undefined }], [{ ...good, user_id: '  ' }], [null]])(
    'Validation user_id: missing or empty → "I need you to be logged in to manage tasks." (%j)',
    (ctx) => {
      const r = validateContext(ctx, wellFormed);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.decision).toMatchObject({ decision_type: 'RESPOND_ONLY', response_text: 'I need you to be logged in to manage tasks.' });
    },
  );

  it.each([[''], ['   '], ['x'.repeat(4001)]])('Validation message: %j (empty or 4001 chars) → invalid input message', (message) => {
    const r = validateContext({ ...good, message }, wellFormed);
    expect(!r.ok && r.decision.response_text).toBe("I didn't understand that. Could you rephrase?");
  });

  it('Validation message: 4000 characters (emoji count as one) are accepted', () => {
    expect(validateContext({ ...good, message: 'x'.repeat(4000) }, wellFormed).ok).toBe(true);
    expect(validateContext({ ...good, message: '\u{1F600}'.repeat(4000) }, wellFormed).ok).toBe(true);
  });

  it('Validation conversation_id: must be a uuid (invalid input message)', () => {
    const r = validateContext({ ...good, conversation_id: 'abc' }, wellFormed);
    expect(!r.ok && r.decision.response_text).toBe("I didn't understand that. Could you rephrase?");
  });

  it('RFC 9562 run ids: a conversation_id in upper case is the same conversation, read in lower case (as every recorded UUID is)', () => {
    const conversation = '6f1c2b1e-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
    const upper = validateContext({ ...good, conversation_id: conversation.toUpperCase() }, wellFormed);
    expect(upper).toMatchObject({ ok: true, context: { conversation_id: conversation } });
    expect(validateContext({ ...good, conversation_id: conversation }, wellFormed)).toMatchObject({ ok: true, context: { conversation_id: conversation } });
  });

  it('Issue 21 validated once: the table rows come first, then the shape check; a shape problem is the invalid input message with its reason', () => {
    const shapes: unknown[] = [];
    const noUser = validateContext({ ...good, user_id: undefined, conversation_id: 'abc' }, (raw) => (shapes.push(raw), ['never asked']));
    expect(!noUser.ok && noUser.decision.response_text).toBe('I need you to be logged in to manage tasks.');
    expect(shapes).toEqual([]);
    const bad = validateContext({ ...good, message_history: ['junk'] }, () => ['message_history.0: nested property must be an object']);
    expect(bad).toMatchObject({ ok: false, reason: 'message_history.0: nested property must be an object', decision: { response_text: "I didn't understand that. Could you rephrase?" } });
  });

  it('Validation: a well-formed history and pending confirmation are kept; missing ones are normalised to [] and null', () => {
    const pending = { action_type: 'DELETE_TASK', task_id: uuid(1), task_description: 'milk', created_at: 't', expires_at: 't' };
    const history = [{ role: 'user', content: 'hi', timestamp: 't' }];
    const r = validateContext({ ...good, pending_confirmation: pending, message_history: history }, wellFormed);
    expect(r.ok && r.context).toMatchObject({ pending_confirmation: pending, message_history: history });
    expect(validateContext(good, wellFormed)).toMatchObject({ ok: true, context: { message_history: [], pending_confirmation: null } });
  });
});

const decision = (d: Partial<AgentDecision>): AgentDecision => ({
  decision_type: 'RESPOND_ONLY',
  tool_calls: null,
  response_text: 'hi',
  clarification_question: null,
  pending_action: null,
  ...d,
});
const call = (tool_name: string, parameters: Record<string, unknown>, sequence = 1) =>
  ({ tool_name, parameters, sequence }) as AgentDecision['tool_calls'] extends (infer T)[] | null ? T : never;

describe('Output validation', () => {
  it('Output validation tool calls: only the five allowed tools', () => {
    const v = validateDecision(decision({ decision_type: 'INVOKE_TOOL', tool_calls: [call('drop_database', { user_id: USER })] }));
    expect(v).toContain("tool_calls[0]: tool 'drop_database' is not allowed");
  });

  it('Output validation parameters: must match the tool schema', () => {
    const bad = validateDecision(
      decision({ decision_type: 'INVOKE_TOOL', tool_calls: [call('complete_task', { user_id: USER, task_id: 'nope', extra: 1 })] }),
    );
    expect(bad.some((m) => m.includes('task_id'))).toBe(true);
    expect(bad.some((m) => m.includes('additional properties'))).toBe(true);
    const long = validateDecision(decision({ decision_type: 'INVOKE_TOOL', tool_calls: [call('add_task', { user_id: USER, description: 'x'.repeat(1001) })] }));
    expect(long.length).toBeGreaterThan(0);
    expect(validateDecision(decision({ decision_type: 'INVOKE_TOOL', tool_calls: [call('add_task', { user_id: USER, description: 'x' })] }))).toEqual([]);
  });

  it('Output validation decision type: must be a valid enum value', () => {
    expect(validateDecision(decision({ decision_type: 'DO_WHATEVER' as never }))).toContain("decision_type 'DO_WHATEVER' is not a valid value");
  });

  it('Output validation: pending_action only for DELETE_TASK', () => {
    const p = { action_type: 'COMPLETE_TASK', task_id: uuid(1), task_description: 'x' } as never;
    expect(validateDecision(decision({ decision_type: 'REQUEST_CONFIRMATION', response_text: 'sure?', pending_action: p }))).toContain(
      'pending_action only for DELETE_TASK',
    );
    const del = { action_type: 'DELETE_TASK' as const, task_id: uuid(1), task_description: 'x' };
    expect(validateDecision(decision({ pending_action: del }))).toContain('pending_action only allowed with REQUEST_CONFIRMATION');
  });

  it('Output validation: delete_task only runs after confirmation (EXECUTE_PENDING)', () => {
    const v = validateDecision(decision({ decision_type: 'INVOKE_TOOL', tool_calls: [call('delete_task', { user_id: USER, task_id: uuid(1) })] }));
    expect(v).toContain('tool_calls[0]: delete_task only allowed in EXECUTE_PENDING');
  });

  it('Output validation: sequences are 1..n in order', () => {
    const calls = [call('list_tasks', { user_id: USER }, 2)];
    expect(validateDecision(decision({ decision_type: 'INVOKE_TOOL', tool_calls: calls }))).toContain('tool_calls[0]: sequence must be 1');
  });

  it('Tool schemas: draft-07, additionalProperties false, exact required fields', () => {
    for (const s of Object.values(TASK_TOOL_SCHEMAS) as Array<Record<string, unknown>>) {
      expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(s.additionalProperties).toBe(false);
    }
    expect((TASK_TOOL_SCHEMAS.update_task as { required: string[] }).required).toEqual(['user_id', 'task_id', 'new_description']);
  });
});

describe('Audit', () => {
  const context: DecisionContext = { user_id: USER, message: 'show tasks', conversation_id: CONVERSATION };
  const intent = { intent_type: 'LIST_TASKS' as const, confidence: 0.95, extracted_params: null };

  it('Audit: record carries the contract fields', () => {
    const d = decision({ decision_type: 'INVOKE_TOOL', tool_calls: [call('list_tasks', { user_id: USER })], response_text: 'Here are your tasks:\n1. a' });
    expect(buildAuditRecord({ timestamp: '2026-01-03T10:00:00.000Z', context, intent, decision: d })).toEqual({
      timestamp: '2026-01-03T10:00:00.000Z',
      conversation_id: CONVERSATION,
      user_id: USER,
      input_message: 'show tasks',
      classified_intent: 'LIST_TASKS',
      decision_type: 'INVOKE_TOOL',
      tool_calls: [{ tool_name: 'list_tasks', parameters: { user_id: USER }, sequence: 1 }],
      response_preview: 'Here are your tasks:\n1. a',
    });
  });

  it('Audit: response_preview is the first 200 chars', () => {
    const long = '\u{1F600}' + 'a'.repeat(300);
    const r = buildAuditRecord({ timestamp: 't', context, intent, decision: decision({ response_text: long }) });
    expect(Array.from(r.response_preview)).toHaveLength(200);
    expect(r.response_preview.startsWith('\u{1F600}a')).toBe(true);
  });

  it('Audit contract classified_intent: a request refused before classification (intent null) records NOT_CLASSIFIED, not AMBIGUOUS (which says a message was classified as unclear)', () => {
    const refused = decision({ response_text: "I didn't understand that. Could you rephrase?" });
    expect(buildAuditRecord({ timestamp: 't', context, intent: null, decision: refused }).classified_intent).toBe('NOT_CLASSIFIED');
    expect(buildAuditRecord({ timestamp: 't', context, intent: { intent_type: 'AMBIGUOUS', confidence: null, extracted_params: null }, decision: refused }).classified_intent).toBe('AMBIGUOUS');
  });

  it('Audit: response_preview falls back to the clarification question, then to ""', () => {
    const q = decision({ decision_type: 'ASK_CLARIFICATION', response_text: null, clarification_question: 'Which one?' });
    expect(buildAuditRecord({ timestamp: 't', context, intent, decision: q }).response_preview).toBe('Which one?');
    const none = decision({ response_text: null });
    expect(buildAuditRecord({ timestamp: 't', context, intent, decision: none }).response_preview).toBe('');
  });
});

describe('Rule 1 expiry', () => {
  const p = createPendingConfirmation({ action_type: 'DELETE_TASK', task_id: uuid(1), task_description: 'x' }, '2026-01-03T10:00:00.000Z');

  it('Rule 1: a confirmation lives 5 minutes from its creation', () => {
    expect(p).toMatchObject({ created_at: '2026-01-03T10:00:00.000Z', expires_at: '2026-01-03T10:05:00.000Z' });
    expect(isPendingLive(p, '2026-01-03T10:04:59.999Z')).toBe(true);
    expect(isPendingLive(p, '2026-01-03T10:05:00.000Z')).toBe(false);
  });

  it('Rule 1: no confirmation or unreadable times are never live', () => {
    expect(isPendingLive(null, '2026-01-03T10:00:00.000Z')).toBe(false);
    expect(isPendingLive({ ...p, expires_at: 'soon' }, '2026-01-03T10:00:00.000Z')).toBe(false);
  });
});
