import type { StoredEvent } from '@runledger/event-log';
import type { ChainEntry } from '@runledger/governance';
import { runSubject } from '@runledger/runs';
import { evolveChain } from './audit-chain';
import { conversationRecords, type DecisionAuditRecord } from './audit-decisions';
import { evolveLedgerRow, indexedRunOf, isListedRun, listedRunOf, withChainEntry } from './ledger-row';

const at = '2026-11-27T00:00:00.000Z';
const recordsOf = (answer: ReturnType<typeof conversationRecords>) => answer.records ?? [];
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

  it('Issue 22 ledger CPU: folding a batch into the row it copies once never changes the row it was given (held rows are folded again after a conflict)', () => {
    const first = chained(opening);
    const row = evolveLedgerRow(null, 'r', opening, first);
    const frozen = JSON.stringify(row);
    const ended = evolveLedgerRow(row, 'r', closing, chained(closing, first));
    expect(JSON.stringify(row)).toBe(frozen);
    expect(ended.audit_trail).not.toBe(row.audit_trail);
    expect(ended.audit_trail).toHaveLength(3);
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

  const record = (run: string, timestamp = at, conversation = 'c-1'): DecisionAuditRecord =>
    ({ timestamp, conversation_id: conversation, user_id: 'u', input_message: 'sealed', classified_intent: 'CREATE_TASK', decision_type: 'INVOKE_TOOL', tool_calls: null, response_preview: 'sealed', run_id: run });
  const decided = [ev('ToolCallRecorded', 8, 0, {}), ev('DecisionRecorded', 8, 1, { decision: {}, intent: {}, audit_record: record('r') }), ev('RunCompleted', 8, 2, {})];

  it('Issue 22 fewer messages: a task run\'s DecisionRecorded audit record is kept in its row, found by its conversation, and neither is listed', () => {
    const first = chained(opening);
    const ended = evolveLedgerRow(evolveLedgerRow(null, 'r', opening, first), 'r', decided, chained(decided, first));
    expect(ended.audit_record).toEqual(record('r'));
    expect(ended.audit_conversation_id).toBe('c-1');
    expect(ended.audit_trail?.map((p) => p[3])).toContain('DecisionRecorded-r-8-1');
    expect(Object.keys(listedRunOf(ended))).not.toEqual(expect.arrayContaining(['audit_record']));
    expect(Object.keys(indexedRunOf(ended))).not.toEqual(expect.arrayContaining(['audit_record', 'audit_conversation_id']));
    // Redelivered (the row read back from the store, a copy): no change, so no write.
    const stored = JSON.parse(JSON.stringify(ended));
    expect(evolveLedgerRow(stored, 'r', decided, chained(decided, first))).toBe(stored);
  });

  it('Issue 22 fewer messages: live ingest (events, then entries, per batch) and replay (entries as chained, then the commit) fold the same row', () => {
    const events = [...opening, ...decided];
    const live = evolveLedgerRow(null, 'r', events, chained(events));
    let replayed = evolveLedgerRow(null, 'r', [], chained(opening));
    replayed = evolveLedgerRow(replayed, 'r', opening, []);
    replayed = evolveLedgerRow(evolveLedgerRow(replayed, 'r', [], chained(decided, chained(opening))), 'r', decided, []);
    expect(JSON.parse(JSON.stringify(replayed))).toEqual(JSON.parse(JSON.stringify(live)));
  });

  it('Issue 22 fewer messages: a conversation\'s records are the earlier audit_decisions documents and the rows\' records, each run once, in timestamp order, the last `limit`', () => {
    const t = (s: number) => `2026-11-27T00:00:0${s}.000Z`;
    const earlier = [record('b', t(2)), record('a', t(1)), record('dup', t(3))];
    const rows = [{ audit_record: record('d', t(4)) }, { audit_record: record('dup', t(3)) }, {}, { audit_record: record('c', t(2)) }];
    expect(recordsOf(conversationRecords(earlier, rows, 200)).map((r) => r.run_id)).toEqual(['a', 'b', 'c', 'dup', 'd']);
    expect(recordsOf(conversationRecords(earlier, rows, 2)).map((r) => r.run_id)).toEqual(['dup', 'd']);
    expect(conversationRecords([], [], 200)).toEqual({ records: [] });
  });
});
