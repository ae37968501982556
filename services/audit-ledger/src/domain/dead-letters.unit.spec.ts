import type { StoredEvent } from '@runledger/event-log';
import { evolveDeadLetters, notRetryableBecause, runIdOf } from './dead-letters';

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

  it('Issue 25 honest outcomes: a dead letter says whether a retry can succeed — not for a run event, nor for a command refused for good — and names its run', () => {
    expect(notRetryableBecause('rl.log.inbox.decision', 'INTERNAL')).toBeNull();
    expect(notRetryableBecause('rl.log.inbox.decision', 'DEPENDENCY.DOWN')).toBeNull();
    expect(notRetryableBecause('rl.log.inbox.decision', 'DATA.ERASED')).toMatch(/^it was refused for good \(DATA\.ERASED: /);
    expect(notRetryableBecause('rl.log.inbox.decision', 'REQUEST.INVALID')).toMatch(/refused for good \(REQUEST\.INVALID/);
    expect(notRetryableBecause('rl.log.run.r1', 'INTERNAL')).toMatch(/is a run event, not a command/);
    // A message no writer made, wherever it was stored, is said to be that (it is no run event and no command).
    for (const subject of ['rl.log.run.r1', 'rl.log.inbox.decision']) expect(notRetryableBecause(subject, 'LOG.FOREIGN_MESSAGE')).toMatch(/^no Runledger writer made it .*never re-published/);
    const [letter] = [ev('MessageDeadLettered', { durable: 'decision-inbox', stream_seq: 12, subject: 'rl.log.inbox.decision', reason: 'handler failed', error_code: 'DATA.ERASED', deliveries: 1 }, 6)].reduce(evolveDeadLetters, []);
    expect(letter).toMatchObject({ retryable: false, not_retryable_because: expect.stringContaining('DATA.ERASED'), run_id: null });
    expect(runIdOf('rl.log.inbox.decision', [{ data: { run_id: 'r-data' }, metadata: {} as StoredEvent['metadata'] }])).toBe('r-data');
    expect(runIdOf('rl.log.inbox.decision', [{ data: { spec: { run_id: 'r-spec' } }, metadata: {} as StoredEvent['metadata'] }])).toBe('r-spec');
    expect(runIdOf('rl.log.run.r-subject', [])).toBe('r-subject');
    expect(runIdOf('rl.log.inbox.decision', [])).toBeNull();
  });
});
