import { DiscardPolicy } from '@nats-io/jetstream';
import { immutabilityProblems, logStreamConfig } from './stream';

describe('log stream settings', () => {
  it('Immutability: the project creates its stream with deny_delete, deny_purge, no rollups, discard new and no limits', () => {
    expect(immutabilityProblems(logStreamConfig())).toEqual([]);
  });

  it('Immutability: a stream that lost any of those settings is named for what it lost, so services refuse to start on it', () => {
    const bad = { ...logStreamConfig(), deny_purge: false, allow_rollup_hdrs: true, discard: DiscardPolicy.Old, max_age: 3_600_000_000_000 };
    expect(immutabilityProblems(bad)).toEqual(['purges allowed', 'rollups allowed', 'discards old messages', 'has limits']);
  });
});
