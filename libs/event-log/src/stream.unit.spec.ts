import { DiscardPolicy } from '@nats-io/jetstream';
import { immutabilityProblems, logIdentityOf, logStreamConfig } from './stream';

describe('log stream settings', () => {
  it('Immutability: the project creates its stream with deny_delete, deny_purge, no rollups, discard new and no limits', () => {
    expect(immutabilityProblems(logStreamConfig())).toEqual([]);
  });

  it('Immutability: a stream that lost any of those settings is named for what it lost, so services refuse to start on it', () => {
    const bad = { ...logStreamConfig(), deny_purge: false, allow_rollup_hdrs: true, discard: DiscardPolicy.Old, max_age: 3_600_000_000_000 };
    expect(immutabilityProblems(bad)).toEqual(['purges allowed', 'rollups allowed', 'discards old messages', 'has limits']);
  });
});

describe('Issue 23 logIdentityOf: the identity the audit anchor is bound to', () => {
  const info = (messages: number, first_seq: number, last_seq: number) => ({ config: { name: 'RUNLEDGER_LOG' }, created: '2026-11-26T10:00:00Z', state: { messages, first_seq, last_seq } });
  it('a log never written to (nats-server says first 0) has the identity it keeps once written', () => {
    expect(logIdentityOf(info(0, 0, 0) as never)).toEqual(logIdentityOf(info(5, 1, 5) as never));
  });
  it('a log whose oldest messages were dropped has another identity', () => {
    expect(logIdentityOf(info(5, 3, 7) as never).first_seq).toBe(3);
  });
});
