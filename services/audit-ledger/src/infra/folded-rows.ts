import { DocumentConflictError, type DocumentCollection, type StoredDocument } from '@runledger/document-store';
import type { StoredEvent } from '@runledger/event-log';
import { LruMap } from '@runledger/kernel';

/** Rows of open runs kept in memory: far more than run at once, so a run's next batch finds its row here. */
const OPEN_ROWS_KEPT = 10_000;

/**
 * A read model whose rows the ledger folds events into, one row per run. Each write expects the revision the row
 * was read at, so a row another ledger instance wrote meanwhile (the consumer lease moved and came back) is a
 * conflict: read afresh and folded again. Rows of runs still open are kept with their revision, so the next batch
 * of a run needs no read.
 */
export class FoldedRows<T extends object> {
  private readonly open = new LruMap<string, StoredDocument<T>>(OPEN_ROWS_KEPT);

  constructor(
    private readonly rows: DocumentCollection<T>,
    /** Whether more events may still come for this row (a finished run's row is not kept). */
    private readonly stillOpen: (row: T) => boolean,
  ) {}

  /**
   * Folds into the row `id` with `step` (given the stored row or null; returning that same row means no change) and
   * writes the result. Returns the row written, or null when nothing changed. `step` may run again after a conflict.
   * `opts.fresh`: the events hold the row's first one (its run's creation), so the row is created without a read; if
   * it exists after all (the events are redelivered), the create is a conflict and the row is read and folded again.
   */
  async fold(id: string, step: (current: T | null) => T, opts: { fresh?: boolean } = {}): Promise<T | null> {
    for (let attempt = 1; ; attempt++) {
      const current = this.open.get(id) ?? (opts.fresh && attempt === 1 ? null : await this.rows.get(id));
      const next = step(current?.value ?? null);
      if (current && next === current.value) return null;
      let written: StoredDocument<T>;
      try {
        written = current ? await this.rows.replace(id, next, current.revision) : await this.create(id, next);
      } catch (err) {
        this.open.delete(id);
        if (err instanceof DocumentConflictError && attempt < 3) continue;
        throw err;
      }
      this.remember(written);
      return written.value;
    }
  }

  private async create(id: string, row: T): Promise<StoredDocument<T>> {
    const { created, doc } = await this.rows.create(id, row);
    if (!created) throw new DocumentConflictError({ collection: 'folded rows', id, expectedRevision: 0, actualRevision: doc.revision });
    return doc;
  }

  private remember(doc: StoredDocument<T>): void {
    if (this.stillOpen(doc.value)) this.open.set(doc.id, doc);
    else this.open.delete(doc.id);
  }
}

/** The runs whose creation (their first event) is among `events`: their rows are folded `fresh`. */
export function runsCreatedIn(events: readonly StoredEvent[]): Set<string> {
  return new Set(events.filter((e) => e.type === 'RunCreated').map((e) => e.metadata.stream_id));
}
