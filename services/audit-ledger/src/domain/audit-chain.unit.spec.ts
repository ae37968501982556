import type { StoredEvent } from '@runledger/event-log';
import type { StoredEvent as RecordedRunEvent } from '@runledger/event-log';
import { verifyChain } from '@runledger/governance';
import recordedRun from '../../../../libs/runs/src/domain/fixtures/task-run-v1.json';
import { auditEventRow, auditEventRowOf, evolveChain, withAuditEvent, type AuditEventRow } from './audit-chain';

const event = (event_id: string, type: string, chain_seq: number): AuditEventRow => ({ event_id, run_id: 'run-1', root_run_id: 'root-1', type, chain_seq, recorded_at: '2026-11-25T00:00:00.000Z', data: {} });

describe('audit trails: a run\'s chained events in chain order', () => {
  it('collects a run\'s chained events in order, once each (a redelivered event leaves the row as it was)', () => {
    const created = withAuditEvent(null, event('e1', 'RunCreated', 7));
    const authorised = withAuditEvent(created, event('e2', 'AuthzDecided', 9));
    expect(authorised).toEqual({ run_id: 'run-1', root_run_id: 'root-1', events: [event('e1', 'RunCreated', 7), event('e2', 'AuthzDecided', 9)] });
    expect(withAuditEvent(authorised, event('e1', 'RunCreated', 7))).toBe(authorised);
  });

  it('Issue 22: an event read back from the log at its chain place is the row its chaining made (the trail keeps no copy of the log)', () => {
    const md = (run: string, root?: string) => ({ event_id: `e-${run}`, stream_id: run, producer: 'decision', recorded_at: '2026-11-27T00:00:00.000Z', ...(root ? { root_run_id: root } : {}) });
    const events = [
      { subject: 'rl.log.run.decision.r1', type: 'RunCreated', data: { sealed: 'x' }, seq: 4, index: 0, metadata: md('r1', 'r1') },
      { subject: 'rl.log.run.decision.r2', type: 'RunCompleted', data: { result: 1 }, seq: 5, index: 2, metadata: { ...md('r2'), run_id: 'r3' } },
    ] as unknown as StoredEvent[];
    const chain = events.reduce(evolveChain, []);
    chain.forEach((entry, i) => expect(auditEventRowOf(events[i], entry.seq)).toEqual(auditEventRow(entry, events[i].data)));
  });
});

describe('Issue 22 ledger CPU: the chain a release writes hashes as every release before it', () => {
  it('the recorded task run (log format 1 envelopes, placed in commits of three) chains to the entry hashes and data digests computed before the hashing was made faster', () => {
    const events = recordedRun.events.map((e, i) => ({ ...e, subject: `rl.log.run.decision.${e.metadata.stream_id}`, seq: 40 + Math.floor(i / 3), index: i % 3 })) as unknown as RecordedRunEvent[];
    const chain = events.reduce(evolveChain, []);
    expect(verifyChain(chain)).toEqual({ ok: true, length: 4 });
    expect(chain.map((e) => String(e.body.data_sha256).slice(0, 12))).toEqual(['8705664f6d08', '0832ace69a35', '547b1ed1d61e', '05dcfe9bb03b']);
    expect(chain[3].entry_hash).toBe('929f9f1d56edb57772ab6e766d2e04a83d2063e4301c000b958ac05bfa7c2988');
  });
});
