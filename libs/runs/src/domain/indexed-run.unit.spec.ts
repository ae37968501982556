import type { StoredEvent } from '@runledger/event-log';
import { evolveIndexedRun, isListed, listedRow, type IndexedRun } from './indexed-run';
import { runSubject } from './run-ownership';
import { evolveRunSummary, initialRunSummary } from './run-summary';

let seq = 0;
const at = '2026-11-27T00:00:00.000Z';
const ev = (subject: string, type: string, producer: string, data: Record<string, unknown> = {}, s = ++seq, index = 0): StoredEvent =>
  ({ subject, type, data, seq: s, index, metadata: { producer, recorded_at: at, stream_id: 'r', run_id: 'r', root_run_id: 'r' } }) as unknown as StoredEvent;
const opening = (subject: string, producer: string, run_kind: string): StoredEvent[] => {
  const s = ++seq;
  return [ev(subject, 'RunCreated', producer, { run_id: 'r', run_kind, agent_name: 'TASK_ASSISTANT' }, s, 0), ev(subject, 'AuthzDecided', producer, { decision: 'allow' }, s, 1), ev(subject, 'RunStarted', producer, {}, s, 2)];
};
const fold = (events: StoredEvent[], row: IndexedRun = initialRunSummary('r')) => evolveIndexedRun(row, events);

describe('Issue 23 runs index: only runs their owner wrote are listed (forged runs left out; audit coverage names them)', () => {
  it('Issue 23 fabricated run: an agent run tool-gateway wrote under its own name is folded into no listed row', () => {
    const row = fold([...opening(runSubject('tool-gateway', 'r'), 'tool-gateway', 'agent'), ev(runSubject('tool-gateway', 'r'), 'RunCompleted', 'tool-gateway')]);
    expect(isListed(row)).toBe(false);
    expect(row.event_count).toBe(0);
  });

  it('Issue 23 producer mismatch: a listed run whose own subject gets another producer\'s event (written by the admin, or before issue 23) is no longer listed', () => {
    const s = runSubject('tool-gateway', 'r');
    const lawful = fold(opening(s, 'tool-gateway', 'tool_gateway'));
    expect(isListed(lawful)).toBe(true);
    expect(lawful.status).toBe('running');
    expect(isListed(fold([ev(s, 'RunCompleted', 'decision')], lawful))).toBe(false);
  });

  it('Issue 23 squatter: events under the run\'s id on another service\'s subject are not part of the run: the row is unchanged and listed', () => {
    const lawful = fold(opening(runSubject('decision', 'r'), 'decision', 'agent'));
    const after = fold([ev(runSubject('export', 'r'), 'RunFailed', 'export', { error: { error_code: 'X', message: 'x', retryable: false } })], lawful);
    expect(listedRow(after)).toEqual(listedRow(lawful));
    expect(isListed(after)).toBe(true);
  });

  it('Issue 23 recorded history: decision\'s cancel request on a choke-point run (written before the bus refused it) keeps the run listed; a row indexed before tracks were kept goes on being folded', () => {
    const s = runSubject('db-write', 'r');
    const row = fold([...opening(s, 'db-write', 'db_write'), ev(s, 'RunCancelRequested', 'decision', { reason: 'x', requested_by: 'operator' })]);
    expect(isListed(row)).toBe(true);
    expect(row.cancel_requested).toBe(true);
    const { ownership: _t, ...earlier } = row;
    const next = fold([ev(s, 'RunCompleted', 'db-write', { output_artifacts: [] })], earlier);
    expect(isListed(next)).toBe(true);
    expect(next.status).toBe('completed');
    expect(Object.keys(listedRow(next))).not.toContain('ownership');
  });
});

describe('Issue 22 ledger CPU: a batch is folded into one copy of the row', () => {
  it('Issue 22 ledger CPU: the row a batch folds to is the row event-by-event folding gives; the row given is never changed; a redelivered batch returns it as it is', () => {
    const s = runSubject('decision', 'r');
    const events = [...opening(s, 'decision', 'agent'), ev(s, 'RunCompleted', 'decision', { output_artifacts: [] })];
    const opened = fold(events.slice(0, 3));
    const frozen = JSON.stringify(opened);
    const seen: Array<[string, string]> = [];
    const ended = evolveIndexedRun(opened, events.slice(3), (type, after) => seen.push([type, after.status]));
    expect(JSON.stringify(opened)).toBe(frozen);
    const { ownership: _track, ...summary } = ended;
    expect(summary).toEqual(events.reduce(evolveRunSummary, initialRunSummary('r')));
    expect(summary).not.toHaveProperty('last_index');
    expect(seen).toEqual([['RunCompleted', 'completed']]);
    expect(evolveIndexedRun(ended, events)).toBe(ended);
  });
});
