import { Inject, Injectable } from '@nestjs/common';
import type { DocumentStore } from '@runledger/document-store';
import { EventLog, StoredEvent } from '@runledger/event-log';
import { checkAuditCoverage, CoverageEvent } from '@runledger/governance';
import { OwnedEvent, servedRunEvents } from '@runledger/runs';
import { AppError, Clock, settingNumber } from '@runledger/kernel';
import { CLOCK, DOCUMENT_STORE } from '@runledger/messaging';
import { AUDIT_DECISIONS, AUDIT_EVENTS, auditEventRow, AuditEventRow, auditRowOpen, CHAINED_EVENT_TYPES, RunAuditRow, withAuditEvent } from '../domain/audit-chain';
import { FoldedRows, runsCreatedIn } from '../infra/folded-rows';
import { contextFromTraceparent, logSubjectTemplate, messagingAttributes, SpanKind, SpanSpec, withSpans } from '@runledger/telemetry';
import { AuditChainWriter } from './audit-chain.writer';

/** The durable consumer that feeds the chain and the runs index; its ack floor says how far the ledger has processed the log. */
export const LEDGER_DURABLE = 'audit-ledger';

interface DecisionRow extends Record<string, unknown> {
  run_id: string;
  conversation_id: string;
  timestamp: string;
}


/** The audit view of the log: the hash chain, its read models, queries, verification and coverage. */
@Injectable()
export class AuditLedgerService {
  /** audit_events: one row per run, written by this consumer only. */
  private readonly auditRows: FoldedRows<RunAuditRow>;

  constructor(
    private readonly log: EventLog,
    private readonly chain: AuditChainWriter,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.auditRows = new FoldedRows(store.collection<RunAuditRow>(AUDIT_EVENTS), auditRowOpen);
  }

  /**
   * Projection step for run events in log order: chain the batch (one append and one signature for all of it: the
   * chain's order is the log's), then write their read-model rows together (idempotent puts keyed by ids, so their
   * order is free). `holdMs`: an open run's row may be held unwritten that long (see settled). Each chained event gets its span in its own request's trace.
   */
  async ingest(events: StoredEvent[], opts: { holdMs?: number } = {}): Promise<void> {
    const byId = new Map(events.map((e) => [e.metadata.event_id, e]));
    const entries = await withSpans('chain audit batch', events.filter((e) => CHAINED_EVENT_TYPES.has(e.type)).map(chainingSpan), () => this.chain.chain(events));
    const byRun = new Map<string, AuditEventRow[]>();
    const rows: Array<Promise<unknown>> = [];
    for (const entry of entries) {
      const event = byId.get(entry.event_id);
      if (!event) continue;
      const row = auditEventRow(entry, event.data);
      byRun.set(row.run_id, [...(byRun.get(row.run_id) ?? []), row]);
      if (event.type === 'DecisionRecorded') {
        const record = (event.data as { audit_record: DecisionRow }).audit_record;
        rows.push(this.store.collection<DecisionRow>(AUDIT_DECISIONS).put(record.run_id, record));
      }
    }
    const created = runsCreatedIn(events);
    for (const [runId, added] of byRun) rows.push(this.auditRows.fold(runId, (row) => added.reduce(withAuditEvent, row) as RunAuditRow, { fresh: created.has(runId), holdMs: opts.holdMs }));
    await Promise.all(rows);
  }

  /** Resolves once every row folded so far is written (rows of open runs may be held, see FoldedRows). */
  settled(): Promise<void> {
    return this.auditRows.settled();
  }

  async query(q: { conversation_id?: string; run_id?: string; root_run_id?: string; limit?: number }) {
    const limit = q.limit ?? 200;
    if (q.conversation_id) {
      const rows = await this.store.collection<DecisionRow>(AUDIT_DECISIONS).find({ conversation_id: q.conversation_id });
      return { records: rows.map((r) => r.value).sort((a, b) => a.timestamp.localeCompare(b.timestamp)).slice(-limit) };
    }
    if (q.run_id || q.root_run_id) {
      const runs = this.store.collection<RunAuditRow>(AUDIT_EVENTS);
      const rows = q.run_id ? [await runs.get(q.run_id)] : await runs.find({ root_run_id: q.root_run_id });
      return { events: rows.flatMap((r) => r?.value.events ?? []).sort((a, b) => a.chain_seq - b.chain_seq).slice(0, limit) };
    }
    throw new AppError('REQUEST.INVALID', 'Give conversation_id, run_id or root_run_id.');
  }

  /** Contract 001 §6: every run has its authz decision, its outcome and its effect audit events. */
  async coverage() {
    const { state } = await this.log.replay<Array<CoverageEvent & OwnedEvent>>((acc, e) => (acc.push({ run_id: e.metadata.stream_id, type: e.type, data: e.data, recorded_at: e.metadata.recorded_at, subject: e.subject, seq: e.seq, index: e.index, metadata: { producer: e.metadata.producer } }), acc), [], { filter: 'rl.log.run.>' });
    // Issue 23: a forged run is no run to cover; it is named instead.
    const { served, forgeries } = servedRunEvents(state);
    // A run with no event for RL_STALE_RUN_MS (default 15 min) is not under way any more: it is reported.
    const covered = checkAuditCoverage(served, { allowInProgress: true, staleAfter: { now: this.clock.now().toISOString(), ms: settingNumber('RL_STALE_RUN_MS') } });
    return { ...covered, ok: covered.ok && !forgeries.length, forged: forgeries };
  }
}

/** The span of one event's chaining, in the trace of the request that produced the event. */
function chainingSpan(event: StoredEvent): SpanSpec {
  const template = logSubjectTemplate(event.subject);
  return {
    name: `process ${template}`,
    kind: SpanKind.CONSUMER,
    parent: contextFromTraceparent(event.metadata.traceparent, event.metadata.tracestate),
    attributes: { ...messagingAttributes({ operation: 'process', subject: event.subject, template, consumerGroup: LEDGER_DURABLE }), 'rl.event.type': event.type },
  };
}
