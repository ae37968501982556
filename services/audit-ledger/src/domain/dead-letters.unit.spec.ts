import type { StoredEvent } from '@runledger/event-log';
import { evolveDeadLetters } from './dead-letters';

const ev = (type: string, data: Record<string, unknown>, seq: number): StoredEvent => ({
  type, data, seq, index: 0, subject: 'rl.log.deadletter.x',
  metadata: { event_id: `e${seq}`, stream_id: 'x', schema_version: 1, contract_version: 'v1', producer: 't', recorded_at: `2026-11-24T00:00:0${seq}.000Z` },
});

describe('Issue 11 deadletters: the list is a fold of rl.log.deadletter.*', () => {
  it('Issue 11 deadletters: a command is retryable, a run event is not; retries are attached once each', () => {
    const events = [
      ev('MessageDeadLettered', { durable: 'decision-inbox', stream_seq: 10, subject: 'rl.log.inbox.decision', reason: 'undecodable message', error_code: 'INTERNAL', deliveries: 1 }, 1),
      ev('MessageDeadLettered', { durable: 'audit-ledger', stream_seq: 11, subject: 'rl.log.run.r1', reason: 'handler failed', error_code: 'INTERNAL', deliveries: 8 }, 2),
      ev('DeadLetterRetried', { durable: 'decision-inbox', stream_seq: 10, new_seq: 40, requested_by: 'op' }, 3),
      ev('DeadLetterRetried', { durable: 'decision-inbox', stream_seq: 10, new_seq: 40, requested_by: 'op' }, 4),
      ev('MessageDeadLettered', { durable: 'decision-inbox', stream_seq: 10, subject: 'rl.log.inbox.decision', reason: 'again', error_code: 'INTERNAL', deliveries: 1 }, 5),
    ];
    const list = events.reduce(evolveDeadLetters, []);
    expect(list.map((l) => [l.id, l.retryable, l.retries.map((r) => r.new_seq)])).toEqual([
      ['decision-inbox:10', true, [40]],
      ['audit-ledger:11', false, []],
    ]);
    expect(list[0].reason).toBe('undecodable message');
  });
});
