import type { StoredEvent } from '@runledger/event-log';
import type { ChainEntry } from '@runledger/governance';
import { runSubject } from '@runledger/runs';
import { evolveChain } from './audit-chain';
import { evolveLedgerRow, indexedRunOf, isListedRun, listedRunOf, withChainEntry } from './ledger-row';

const at = '2026-11-27T00:00:00.000Z';
const ev = (type: string, seq: number, index: number, data: Record<string, unknown> = {}, run = 'r'): StoredEvent =>
  ({ subject: runSubject('decision', run), type, data, seq, index, metadata: { event_id: `${type}-${run}-${seq}-${index}`, producer: 'decision', recorded_at: at, stream_id: run, run_id: run, root_run_id: 'root' } }) as unknown as StoredEvent;
const opening = [ev('RunCreated', 3, 0, { run_id: 'r', run_kind: 'agent', agent_name: 'TASK_ASSISTANT', root_run_id: 'root' }), ev('AuthzDecided', 3, 1, { decision: 'allow' }), ev('RunStarted', 3, 2)];
const closing = [ev('RunCompleted', 8, 0, { result: {} })];
const chained = (events: StoredEvent[], chain: ChainEntry[] = []) => events.reduce(evolveChain, chain).slice(chain.length);

describe('Issue 22 ledger rows: one row per run, its summary and its audit trail (no copy of the log)', () => {
  it('Issue 22: a run\'s events and their chain entries fold into one row: the summary as the runs index folds it, the trail as positions', () => {
    const first = chained(opening);
    const row = evolveLedgerRow(null, 'r', opening, first);
    const ended = evolveLedgerRow(row, 'r', closing, chained(closing, first));
    expect(ended.status).toBe('completed');
    expect(ended.audit_root_run_id).toBe('root');
    // RunStarted is not chained: the trail holds RunCreated, AuthzDecided and RunCompleted, at their log positions.
    expect(ended.audit_trail).toEqual([[1, 3, 0, 'RunCreated-r-3-0'], [2, 3, 1, 'AuthzDecided-r-3-1'], [3, 8, 0, 'RunCompleted-r-8-0']]);
    expect(listedRunOf(ended)).toEqual(listedRunOf(indexedRunOf(ended)));
    expect(Object.keys(listedRunOf(ended))).not.toEqual(expect.arrayContaining(['audit_trail']));
  });

  it('Issue 22: a redelivered batch (its events and entries again) leaves the row as it was: no write', () => {
    const entries = chained(opening);
    const row = evolveLedgerRow(null, 'r', opening, entries);
    expect(evolveLedgerRow(row, 'r', opening, entries)).toBe(row);
    expect(withChainEntry(row, entries[0])).toBe(row);
  });

  it('Issue 22: a chained event that names another run than its stream\'s goes to that run\'s trail, and that row lists no run', () => {
    const foreign = ev('RunCompleted', 9, 0, {}, 'x');
    const entry: ChainEntry = { ...chained([foreign])[0], body: { ...chained([foreign])[0].body, run_id: 'elsewhere' } };
    const row = evolveLedgerRow(null, 'elsewhere', [], [entry]);
    expect(row.audit_trail).toHaveLength(1);
    expect(isListedRun(row)).toBe(false);
    expect(isListedRun(evolveLedgerRow(null, 'r', opening, chained(opening)))).toBe(true);
  });
});
