import { Inject, Injectable, Optional } from '@nestjs/common';
import type { RunsListRequest, RunsListResult } from '@runledger/contracts';
import { type DocumentStore, NatsKvDocumentStore } from '@runledger/document-store';
import type { StoredEvent } from '@runledger/event-log';
import type { ChainEntry } from '@runledger/governance';
import { AppError } from '@runledger/kernel';
import { type CachedDataKeys, DATA_KEYS, DOCUMENT_STORE, isSealed, openDeep, RUNTIME, type ServiceRuntime } from '@runledger/messaging';
import type { RunSummary } from '@runledger/runs';
import { recordRunEvent } from '@runledger/telemetry';
import { evolveLedgerRow, isListedRun, type LedgerRow, listedRunOf } from '../domain/ledger-row';
import { decodeCursor, pageRuns, storeFilter } from '../domain/runs-query';
import { FoldedRows, runsCreatedIn } from '../infra/folded-rows';
import { KvMirror } from '../infra/kv-mirror';

/** The runs index's collection: one LedgerRow per run id (its summary and audit trail). `runledger replay` rebuilds it under the same name. */
export const RUNS_INDEX = 'runs_index';
/** What recordRunEvent reads of a run's row after an event. */
type RunMetricFields = Pick<RunSummary, 'agent_name' | 'run_kind' | 'status'>;
const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'denied', 'cancelled']);

/**
 * The runs index: a read model folded from run events in the ledger's pass over the log, queried by rl.runs.list, and
 * (issue 22) each run's audit trail and decision audit record, queried by rl.audit.query (AuditTrails, AuditDecisions):
 * one row, one write per run.
 * Each event is folded into its run's row; the row remembers the last log sequence it folded, so a
 * redelivered event is a no-op and the row equals a replay of the run's events.
 */
@Injectable()
export class RunsIndexService {
  /** One row per run, written by this consumer only. */
  private readonly index: FoldedRows<LedgerRow>;
  /** On NATS KV: every row in memory, caught up with the bucket on each list (see rowsWhere). */
  private mirror?: Promise<KvMirror<LedgerRow>>;

  constructor(
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Optional() @Inject(RUNTIME) private readonly runtime?: Pick<ServiceRuntime, 'nc'>,
    /** Opens sealed values the rows copied from the log (a failed run's error message), for the answer and its text search. */
    @Optional() @Inject(DATA_KEYS) private readonly keys?: CachedDataKeys,
  ) {
    this.index = new FoldedRows(this.rows, (row) => !TERMINAL_STATUSES.has(row.status));
  }

  private get rows() {
    return this.store.collection<LedgerRow>(RUNS_INDEX);
  }

  /**
   * Folds events (in log order) and the chain entries the batch made of them into their runs' rows: at most one read
   * (none for a run kept open or created in this batch) and one write per run, runs in parallel; `holdMs`: an open
   * run's row may be held unwritten that long. An entry goes to the run its event names (the chain's run_id).
   */
  async ingest(events: StoredEvent[], entries: readonly ChainEntry[], opts: { holdMs?: number } = {}): Promise<void> {
    const byRun = new Map<string, { events: StoredEvent[]; entries: ChainEntry[] }>();
    const of = (runId: string) => byRun.get(runId) ?? byRun.set(runId, { events: [], entries: [] }).get(runId)!;
    for (const event of events) of(event.metadata.stream_id).events.push(event);
    for (const entry of entries) of(String(entry.body.run_id)).entries.push(entry);
    const created = runsCreatedIn(events);
    // Every fold ends before a failure is reported: the batch's commits are then handled again, and nothing of this
    // attempt may still be folding meanwhile (FoldedRows orders folds of one row, this keeps the attempts apart).
    const outcomes = await Promise.allSettled([...byRun].map(([runId, run]) => this.fold(runId, run, { fresh: created.has(runId), holdMs: opts.holdMs })));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Folds one run's events and chain entries into its row (kept in memory while the run is open, see FoldedRows). */
  private async fold(runId: string, run: { events: StoredEvent[]; entries: ChainEntry[] }, opts: { fresh: boolean; holdMs?: number }): Promise<void> {
    let folded: Array<[string, RunMetricFields]> = [];
    await this.index.fold(runId, (current) => {
      folded = [];
      // Issue 23: only the run its owner wrote is indexed (a forged run is left out; audit coverage names it). `after`
      // is the fold's working copy of the row: what the metric needs of it is taken now.
      return evolveLedgerRow(current, runId, run.events, run.entries, (type, after) => folded.push([type, { agent_name: after.agent_name, run_kind: after.run_kind, status: after.status }]));
    }, opts);
    // Counted here, once per event folded: every run kind passes through this one projection.
    for (const [type, summary] of folded) recordRunEvent(type, summary);
  }

  /** Resolves once every row folded so far is written (rows of open runs may be held, see FoldedRows). */
  settled(): Promise<void> {
    return this.index.settled();
  }

  async list(q: RunsListRequest): Promise<RunsListResult> {
    const cursor = q.cursor ? decodeCursor(q.cursor) : null;
    if (q.cursor && !cursor) throw new AppError('REQUEST.INVALID', 'The cursor is not one rl.runs.list returned.');
    if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until)) throw new AppError('REQUEST.INVALID', 'since must be before until.');
    const rows = (await this.rowsWhere(storeFilter(q))).filter(isListedRun).map(listedRunOf);
    // A text search looks in error messages, so it needs them open; otherwise only the page's rows are opened.
    if (q.text) return pageRuns(await this.opened(rows), q, cursor);
    const page = pageRuns(rows, q, cursor);
    return { ...page, runs: await this.opened(page.runs) };
  }

  /** Rows with their sealed error message opened (a failed run's RunFailed text, sealed in the log; erased: "[erased]"). */
  private async opened(rows: RunSummary[]): Promise<RunSummary[]> {
    const keys = this.keys;
    if (!keys) return rows;
    const sealed = rows.flatMap((r, i) => (isSealed(r.error_message) ? [i] : []));
    const out = [...rows];
    await Promise.all(sealed.map(async (i) => (out[i] = { ...rows[i], error_message: (await openDeep(keys, rows[i].error_message)) as string })));
    return out;
  }

  /** Run `id`'s row with its audit trail (rl.audit.query by run_id), or null. */
  async row(id: string): Promise<LedgerRow | null> {
    return (await this.rows.get(id))?.value ?? null;
  }

  /** The rows whose audit trail names run tree `rootRunId` (rl.audit.query by root_run_id). */
  async rowsOfTree(rootRunId: string): Promise<LedgerRow[]> {
    return (await this.rowsWhere({ audit_root_run_id: rootRunId })).filter((r) => r.audit_root_run_id === rootRunId);
  }

  /** The rows holding an audit record of conversation `conversationId` (rl.audit.query by conversation_id). */
  async rowsOfConversation(conversationId: string): Promise<LedgerRow[]> {
    return (await this.rowsWhere({ audit_conversation_id: conversationId })).filter((r) => r.audit_conversation_id === conversationId);
  }

  /**
   * The rows a query may match (the caller applies the filter). A find on NATS KV reads every key, one get each (about
   * 1–2 s for 10,000 runs on our machines), so there the rows come from a mirror that reads only what the bucket
   * stored since the last list; a list still sees every row written before it was asked. MongoDB filters itself.
   */
  private async rowsWhere(filter: Partial<Record<keyof LedgerRow, unknown>>): Promise<LedgerRow[]> {
    if (!(this.store instanceof NatsKvDocumentStore) || !this.runtime) return (await this.rows.find(filter)).map((d) => d.value);
    const store = this.store;
    const nc = this.runtime.nc;
    if (!this.mirror) {
      // The get creates the bucket if nothing was indexed yet; a failed start is tried again by the next list.
      this.mirror = this.rows.get('created-on-first-use').then(() => {
        const { stream, subject } = store.storedAt(RUNS_INDEX, 'x');
        return new KvMirror<LedgerRow>(nc, stream, subject.slice(0, -1));
      });
      this.mirror.catch(() => (this.mirror = undefined));
    }
    return (await this.mirror).values();
  }
}
