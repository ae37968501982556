/**
 * Issue 22: the ledger writes one row per run (runs_index: its summary and audit trail) instead of two, and
 * rl.audit.query answers a run's chained events from the log at the trail's positions — the same answer the
 * `audit_events` row of earlier releases gave — on a real nats-server; a data directory of those releases keeps its
 * `audit_events` rows, read as they are.
 */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { NatsKvDocumentStore } from '@runledger/document-store';
import { ensureLogStream, EventLog, type StoredEvent } from '@runledger/event-log';
import { RunRepository } from '@runledger/runs';
import { useNatsServer } from '@runledger/testing';
import { AUDIT_DECISIONS, AUDIT_EVENTS, auditEventRow, evolveChain, type RunAuditRow } from '../domain/audit-chain';
import type { DecisionAuditRecord } from '../domain/audit-decisions';
import type { AuditChainWriter } from './audit-chain.writer';
import { AuditDecisions } from './audit-decisions';
import { AuditLedgerService } from './audit-ledger.service';
import { AuditTrails } from './audit-trails';
import { RUNS_INDEX, RunsIndexService } from './runs-index.service';

const at = '2026-11-27T00:00:00.000Z';
const runId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const ROOT = runId(1);

describe('Issue 22 audit trails: one ledger row per run, audit answers read from the log', () => {
  const nats = useNatsServer();
  let log: EventLog;
  let store: NatsKvDocumentStore;
  let index: RunsIndexService;
  let trails: AuditTrails;
  let events: StoredEvent[];

  /** A run's opening and end as two commits under its owner's name: RunCreated + AuthzDecided + RunStarted, then RunCompleted. */
  async function run(id: string): Promise<StoredEvent[]> {
    const ref = RunRepository.ref(id, 'decision');
    const metadata = { run_id: id, root_run_id: ROOT, recorded_at: at };
    await log.append(ref, [
      { type: 'RunCreated', data: { run_id: id, run_kind: 'agent', agent_name: 'TASK_ASSISTANT', root_run_id: ROOT }, metadata },
      { type: 'AuthzDecided', data: { decision: 'allow' }, metadata },
      { type: 'RunStarted', data: {}, metadata },
    ], { commandId: `${id}:open`, expectedVersion: 0 });
    await log.append(ref, [{ type: 'RunCompleted', data: { result: { ok: id } }, metadata }], { commandId: `${id}:close` });
    return log.read(ref);
  }

  beforeAll(async () => {
    const jsm = await jetstreamManager(nats.nc);
    await ensureLogStream(jsm);
    log = new EventLog(jetstream(nats.nc), jsm, { producer: 'decision', clock: { now: () => new Date(at) } });
    store = new NatsKvDocumentStore(nats.nc);
    index = new RunsIndexService(store, { nc: nats.nc });
    trails = new AuditTrails(index, log, store);
    events = [...(await run(runId(1))), ...(await run(runId(2)))];
  });

  it('Issue 22: a batch writes one runs_index row per run and no audit_events row; the audit answer is the rows chaining made', async () => {
    const entries = events.reduce(evolveChain, []);
    await index.ingest(events, entries, { holdMs: 60_000 });
    await index.settled();
    expect((await store.collection(RUNS_INDEX).find({})).map((d) => d.id).sort()).toEqual([runId(1), runId(2)]);
    expect(await store.collection(AUDIT_EVENTS).find({})).toEqual([]);
    const dataOf = new Map(events.map((e) => [e.metadata.event_id, e.data]));
    const rowsOf = (id: string) => entries.filter((e) => e.body.run_id === id).map((e) => auditEventRow(e, dataOf.get(e.event_id)));
    expect(await trails.ofRun(runId(1), 200)).toEqual(rowsOf(runId(1)));
    expect(await trails.ofRun(runId(2), 2)).toEqual(rowsOf(runId(2)).slice(0, 2));
    expect(await trails.ofTree(ROOT, 200)).toEqual([...rowsOf(runId(1)), ...rowsOf(runId(2))]);
    // A redelivered batch changes no row (its entries are found in each run's trail).
    await index.ingest(events, entries, { holdMs: 60_000 });
    await index.settled();
    expect(await trails.ofRun(runId(1), 200)).toEqual(rowsOf(runId(1)));
  });

  it('Issue 22 upgrade: a run of an earlier release answers from its audit_events row; one open across the upgrade from both, each event once', async () => {
    const earlier = store.collection<RunAuditRow>(AUDIT_EVENTS);
    const copied = (id: string, seq: number) => ({ event_id: `${id}-e${seq}`, run_id: id, root_run_id: ROOT, type: 'RunCreated', chain_seq: seq, recorded_at: at, data: { copied: seq } });
    await earlier.put(runId(3), { run_id: runId(3), root_run_id: ROOT, events: [copied(runId(3), 100)] });
    expect(await trails.ofRun(runId(3), 200)).toEqual([copied(runId(3), 100)]);
    // Run 2's first event was chained (and copied) before the upgrade: the earlier row holds it, the new trail too.
    const spanning = (await trails.ofRun(runId(2), 200));
    await earlier.put(runId(2), { run_id: runId(2), root_run_id: ROOT, events: [spanning[0]] });
    expect(await trails.ofRun(runId(2), 200)).toEqual(spanning);
    expect((await trails.ofTree(ROOT, 200)).map((e) => e.chain_seq)).toEqual([...(await trails.ofTree(ROOT, 200)).map((e) => e.chain_seq)].sort((a, b) => a - b));
    expect((await trails.ofTree(ROOT, 200)).map((e) => e.event_id)).toContain(`${runId(3)}-e100`);
    await earlier.delete(runId(2));
    await earlier.delete(runId(3));
  });

  it('Issue 22 fewer messages: a task run\'s audit record is written in its runs_index row, not to audit_decisions; rl.audit.query by conversation answers earlier documents and rows merged, each run once', async () => {
    const conversation = '00000000-0000-4000-8000-00000000c0c0';
    const record = (id: string, timestamp: string): DecisionAuditRecord =>
      ({ timestamp, conversation_id: conversation, user_id: 'u', input_message: `m ${id}`, classified_intent: 'CREATE_TASK', decision_type: 'INVOKE_TOOL', tool_calls: null, response_preview: 'ok', run_id: id });
    const decided = async (id: string, timestamp: string) => {
      const ref = RunRepository.ref(id, 'decision');
      const metadata = { run_id: id, root_run_id: id, recorded_at: at };
      await log.append(ref, [
        { type: 'RunCreated', data: { run_id: id, run_kind: 'agent', agent_name: 'TASK_ASSISTANT', root_run_id: id, conversation_id: conversation }, metadata },
        { type: 'AuthzDecided', data: { decision: 'allow' }, metadata },
        { type: 'RunStarted', data: {}, metadata },
      ], { commandId: `${id}:open`, expectedVersion: 0 });
      await log.append(ref, [
        { type: 'DecisionRecorded', data: { decision: {}, intent: {}, audit_record: record(id, timestamp) }, metadata },
        { type: 'RunCompleted', data: { result: {} }, metadata },
      ], { commandId: `${id}:close` });
      return log.read(ref);
    };
    // A data directory of an earlier release: run 10's record as its own document; run 11 recorded there and in its row.
    const earlier = store.collection<DecisionAuditRecord>(AUDIT_DECISIONS);
    await earlier.put(runId(10), record(runId(10), '2026-11-27T00:00:01.000Z'));
    await earlier.put(runId(11), record(runId(11), '2026-11-27T00:00:02.000Z'));
    const batch = [...(await decided(runId(11), '2026-11-27T00:00:02.000Z')), ...(await decided(runId(12), '2026-11-27T00:00:03.000Z'))];
    const chain = { chain: async (events: readonly StoredEvent[]) => events.reduce(evolveChain, []) } as unknown as AuditChainWriter;
    const decisions = new AuditDecisions(index, store);
    const ledger = new AuditLedgerService(log, chain, trails, decisions, { now: () => new Date(at) });
    await index.ingest(batch, await ledger.ingest(batch), { holdMs: 60_000 });
    await index.settled();

    expect((await earlier.find({})).map((d) => d.id)).toEqual([runId(10), runId(11)]); // nothing written there
    expect((await index.row(runId(12)))?.audit_record).toEqual(record(runId(12), '2026-11-27T00:00:03.000Z'));
    const answer = await ledger.query({ conversation_id: conversation });
    expect(answer).toEqual({ records: [record(runId(10), '2026-11-27T00:00:01.000Z'), record(runId(11), '2026-11-27T00:00:02.000Z'), record(runId(12), '2026-11-27T00:00:03.000Z')] });
    expect(await ledger.query({ conversation_id: conversation, limit: 1 })).toEqual({ records: [record(runId(12), '2026-11-27T00:00:03.000Z')] });
    expect(await ledger.query({ conversation_id: runId(99) })).toEqual({ records: [] });
    await earlier.delete(runId(10));
    await earlier.delete(runId(11));
  });
});
