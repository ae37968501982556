import { Inject, Injectable } from '@nestjs/common';
import type { RunsListRequest, RunsListResult } from '@runledger/contracts';
import { DocumentConflictError, type DocumentStore, type StoredDocument } from '@runledger/document-store';
import type { StoredEvent } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { evolveRunSummary, initialRunSummary, RunSummary } from '@runledger/runs';
import { recordRunEvent } from '@runledger/telemetry';
import { decodeCursor, pageRuns, storeFilter } from '../domain/runs-query';

/** The runs index's collection: one RunSummary per run id. `runledger replay` rebuilds it under the same name. */
export const RUNS_INDEX = 'runs_index';
/** Open runs' rows kept in memory: far more than run at once, so a run's next batch finds its row here. */
const OPEN_ROWS_KEPT = 10_000;

/**
 * The runs index: a read model folded from run events in the ledger's pass over the log, queried by rl.runs.list.
 * Each event is folded into its run's row; the row remembers the last log sequence it folded, so a
 * redelivered event is a no-op and the row equals a replay of the run's events.
 */
@Injectable()
export class RunsIndexService {
  /** Rows of open runs as this instance last wrote them (see fold), oldest first. */
  private readonly open = new Map<string, StoredDocument<RunSummary>>();
  /** The KV read that list calls arriving now will share (see rowsFor); cleared once it starts. */
  private nextScan?: Promise<RunSummary[]>;

  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  private get rows() {
    return this.store.collection<RunSummary>(RUNS_INDEX);
  }

  /** Folds events (in log order) into their runs' rows: one read and at most one write per run, runs in parallel. */
  async ingest(events: StoredEvent[]): Promise<void> {
    const byRun = new Map<string, StoredEvent[]>();
    for (const event of events) {
      const runId = event.metadata.stream_id;
      byRun.set(runId, [...(byRun.get(runId) ?? []), event]);
    }
    await Promise.all([...byRun].map(([runId, runEvents]) => this.fold(runId, runEvents)));
  }

  /**
   * Folds one run's events into its row. The row last written is kept (with its revision) for runs still open, so
   * the next batch needs no read; the write expects that revision, so a row another ledger instance wrote meanwhile
   * (the consumer lease moved and came back) is a conflict: read afresh and folded again.
   */
  private async fold(runId: string, events: StoredEvent[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = this.open.get(runId) ?? (await this.rows.get(runId));
      let next = current?.value ?? initialRunSummary(runId);
      const folded: Array<[string, RunSummary]> = [];
      for (const event of events) {
        const after = evolveRunSummary(next, event);
        if (after !== next) folded.push([event.type, after]);
        next = after;
      }
      if (!folded.length) return;
      let written: StoredDocument<RunSummary>;
      try {
        written = current ? await this.rows.replace(runId, next, current.revision) : await this.createRow(runId, next);
      } catch (err) {
        this.open.delete(runId);
        if (err instanceof DocumentConflictError && attempt < 3) continue;
        throw err;
      }
      this.remember(written);
      // Counted here, once per event folded: every run kind passes through this one projection.
      for (const [type, summary] of folded) recordRunEvent(type, summary);
      return;
    }
  }

  private async createRow(runId: string, row: RunSummary): Promise<StoredDocument<RunSummary>> {
    const { created, doc } = await this.rows.create(runId, row);
    if (!created) throw new DocumentConflictError({ collection: RUNS_INDEX, id: runId, expectedRevision: 0, actualRevision: doc.revision });
    return doc;
  }

  /** Open runs only (a finished run gets few more events), and at most OPEN_ROWS_KEPT of them. */
  private remember(doc: StoredDocument<RunSummary>): void {
    this.open.delete(doc.id);
    if (['completed', 'failed', 'denied', 'cancelled'].includes(doc.value.status)) return;
    if (this.open.size >= OPEN_ROWS_KEPT) this.open.delete(this.open.keys().next().value as string);
    this.open.set(doc.id, doc);
  }

  async list(q: RunsListRequest): Promise<RunsListResult> {
    const cursor = q.cursor ? decodeCursor(q.cursor) : null;
    if (q.cursor && !cursor) throw new AppError('REQUEST.INVALID', 'The cursor is not one rl.runs.list returned.');
    if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until)) throw new AppError('REQUEST.INVALID', 'since must be before until.');
    return pageRuns(await this.rowsFor(q), q, cursor);
  }

  /**
   * The rows a query may match (pageRuns applies the filter). On NATS KV a find reads every row whatever its filter,
   * so list calls that arrive together (the resolver's sweep asks for three statuses at once) share one read, begun
   * after each of them arrived: none sees older rows than a read of its own would, and a sweep reads the index once.
   */
  private rowsFor(q: RunsListRequest): Promise<RunSummary[]> {
    if (this.store.kind !== 'nats-kv') return this.rows.find(storeFilter(q)).then((docs) => docs.map((d) => d.value));
    this.nextScan ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.nextScan = undefined;
      return this.rows.find().then((docs) => docs.map((d) => d.value));
    });
    return this.nextScan;
  }
}
