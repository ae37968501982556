import { Inject, Injectable } from '@nestjs/common';
import type { RunsListRequest, RunsListResult } from '@runledger/contracts';
import type { DocumentStore } from '@runledger/document-store';
import type { StoredEvent } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { DOCUMENT_STORE } from '@runledger/messaging';
import { evolveRunSummary, initialRunSummary, RunSummary } from '@runledger/runs';
import { recordRunEvent } from '@runledger/telemetry';
import { decodeCursor, pageRuns, storeFilter } from '../domain/runs-query';

/** The runs index's collection: one RunSummary per run id. `runledger replay` rebuilds it under the same name. */
export const RUNS_INDEX = 'runs_index';

/**
 * The runs index: a read model folded from run events by its own durable consumer, queried by rl.runs.list.
 * Each event is folded into its run's row; the row remembers the last log sequence it folded, so a
 * redelivered event is a no-op and the row equals a replay of the run's events.
 */
@Injectable()
export class RunsIndexService {
  constructor(@Inject(DOCUMENT_STORE) private readonly store: DocumentStore) {}

  private get rows() {
    return this.store.collection<RunSummary>(RUNS_INDEX);
  }

  async ingest(event: StoredEvent): Promise<void> {
    const runId = event.metadata.stream_id;
    const current = await this.rows.get(runId);
    const next = evolveRunSummary(current?.value ?? initialRunSummary(runId), event);
    if (next === current?.value) return;
    // One consumer, one event at a time: no other writer of this row, so a plain put is safe.
    await this.rows.put(runId, next);
    // Counted here, once per event folded: every run kind passes through this one projection.
    recordRunEvent(event.type, next);
  }

  async list(q: RunsListRequest): Promise<RunsListResult> {
    const cursor = q.cursor ? decodeCursor(q.cursor) : null;
    if (q.cursor && !cursor) throw new AppError('REQUEST.INVALID', 'The cursor is not one rl.runs.list returned.');
    if (q.since && q.until && Date.parse(q.since) >= Date.parse(q.until)) throw new AppError('REQUEST.INVALID', 'since must be before until.');
    const docs = await this.rows.find(storeFilter(q));
    return pageRuns(docs.map((d) => d.value), q, cursor);
  }
}
