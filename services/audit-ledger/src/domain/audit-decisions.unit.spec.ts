import { conversationRecords, type DecisionAuditRecord } from './audit-decisions';

const conversation = '6f1c0000-0000-4000-8000-000000000001';
const record = (run_id: string, user_id: string, timestamp: string): DecisionAuditRecord =>
  ({ run_id, conversation_id: conversation, user_id, timestamp, input_message: 'm', classified_intent: 'CREATE_TASK', decision_type: 'INVOKE_TOOL', tool_calls: null, response_preview: 'ok' });
const rows = (...records: DecisionAuditRecord[]) => records.map((audit_record) => ({ audit_record, audit_conversation_id: conversation }));

describe('rl.audit.query by conversation_id: one user\'s decision audit records (contract 000 Audit contract, "Never expose: user IDs of other users")', () => {
  const alice = [record('r1', 'alice', '2026-11-28T10:00:00.000Z'), record('r3', 'alice', '2026-11-28T10:02:00.000Z')];
  const bob = record('r2', 'rl.caller.caller.bob', '2026-11-28T10:01:00.000Z');

  it('Contract 000 Audit: two users sharing a conversation id are never answered mixed: without user_id the query is refused naming how many users hold records there', () => {
    const answer = conversationRecords([], rows(...alice, bob), 200);
    expect(answer).toEqual({ problem: expect.stringContaining('holds the decision audit records of 2 users') });
    expect((answer as { problem: string }).problem).toContain('name one with user_id');
  });

  it('Contract 000 Audit: with user_id the answer is that user\'s records only, in timestamp order, the last limit', () => {
    expect(conversationRecords([], rows(...alice, bob), 200, 'alice')).toEqual({ records: alice });
    expect(conversationRecords([], rows(...alice, bob), 1, 'alice')).toEqual({ records: [alice[1]] });
    expect(conversationRecords([], rows(...alice, bob), 200, 'rl.caller.caller.bob')).toEqual({ records: [bob] });
    expect(conversationRecords([], rows(...alice, bob), 200, 'carol')).toEqual({ records: [] });
  });

  it('a conversation of one user is answered as before, with or without user_id; a request refused without a user is its own "user" (user_id "")', () => {
    expect(conversationRecords([], rows(...alice), 200)).toEqual({ records: alice });
    const nobody = record('r0', '', '2026-11-28T09:00:00.000Z');
    expect(conversationRecords([], rows(nobody, ...alice), 200)).toEqual({ problem: expect.stringContaining('2 users') });
    expect(conversationRecords([], rows(nobody, ...alice), 200, '')).toEqual({ records: [nobody] });
  });
});
