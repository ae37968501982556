import { DocumentConflictError, type DocumentCollection, type StoredDocument } from '@runledger/document-store';
import type { StoredEvent } from '@runledger/event-log';
import { Logger } from '@nestjs/common';
import { AppError, LruMap } from '@runledger/kernel';

/** Rows of open runs kept in memory: far more than run at once, so a run's next batch finds its row here. */
const OPEN_ROWS_KEPT = 10_000;

type Step<T> = (current: T | null) => T;

/** A row folded in memory and not written yet: what is stored under it, and the steps folded since. */
interface Held<T> {
  base: StoredDocument<T> | null;
  value: T;
  steps: Step<T>[];
  written: Promise<void>;
  resolve: () => void;
  timer?: NodeJS.Timeout;
}

/** Attempts of a held row's write that failed without a retryable cause (a bus fault is retried until it passes). */
const GIVE_UP_AFTER = 8;

/**
 * A read model whose rows the ledger folds events into, one row per run. Each write expects the revision the row
 * was read at, so a row another ledger instance wrote meanwhile (the consumer lease moved and came back) is a
 * conflict: read afresh and folded again. Rows of runs still open are kept with their revision, so the next batch
 * of a run needs no read.
 *
 * Folded with `holdMs` (issue 22: a run's row written once, not once per batch its events fall into), the row of a run still
 * open is held in memory, unwritten, until the run ends or `holdMs` has passed; `settled()` says when everything
 * folded so far is written, and the ledger's batch is acked only then (a DeferredSettlement), so a crash loses no fold:
 * the unacked events are delivered again.
 */
export class FoldedRows<T extends object> {
  private readonly open = new LruMap<string, StoredDocument<T>>(OPEN_ROWS_KEPT);
  private readonly held = new Map<string, Held<T>>();
  private readonly writing = new Map<string, Promise<void>>();

  constructor(
    private readonly rows: DocumentCollection<T>,
    /** Whether more events may still come for this row (a finished run's row is not kept). */
    private readonly stillOpen: (row: T) => boolean,
  ) {}

  /**
   * Folds into the row `id` with `step` (given the stored row or null; returning that same row means no change) and
   * writes the result, or holds it (see holdMs). Returns the row, or null when nothing changed. `step` may run again
   * after a conflict. `opts.fresh`: the events hold the row's first one (its run's creation), so the row is created
   * without a read; if it exists after all (the events are redelivered), the create is a conflict and the row is read
   * and folded again.
   */
  async fold(id: string, step: Step<T>, opts: { fresh?: boolean; holdMs?: number } = {}): Promise<T | null> {
    await this.writing.get(id); // a held row being written: fold on what it wrote
    const held = this.held.get(id);
    if (held) {
      const next = step(held.value);
      if (next === held.value) return null;
      held.value = next;
      held.steps.push(step);
      if (!this.stillOpen(next)) await this.flush(id);
      return next;
    }
    const current = this.open.get(id) ?? (opts.fresh ? null : await this.rows.get(id));
    const next = step(current?.value ?? null);
    if (current && next === current.value) return null;
    if (opts.holdMs && this.stillOpen(next)) {
      this.hold(id, current, next, step, opts.holdMs);
      return next;
    }
    // Folded already: written as folded, not folded again (a step folds every event of the batch for the row).
    return this.write(id, current, [step], next);
  }

  /** Resolves once every row folded so far is written. */
  settled(): Promise<void> {
    return Promise.all([...[...this.held.values()].map((h) => h.written), ...this.writing.values()]).then(() => undefined);
  }

  private hold(id: string, base: StoredDocument<T> | null, value: T, step: Step<T>, holdMs: number): void {
    let resolve!: () => void;
    const written = new Promise<void>((r) => (resolve = r));
    const held: Held<T> = { base, value, steps: [step], written, resolve };
    held.timer = setTimeout(() => void this.flush(id), holdMs);
    held.timer.unref();
    this.held.set(id, held);
  }

  /** Writes a held row now; retried until it is written (or, failing for no passing cause, given up and logged). */
  private flush(id: string): Promise<void> {
    const held = this.held.get(id);
    if (!held) return this.writing.get(id) ?? Promise.resolve();
    this.held.delete(id);
    clearTimeout(held.timer);
    const done = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.write(id, held.base, held.steps, held.value);
          return;
        } catch (err) {
          const retryable = err instanceof AppError ? err.retryable : true;
          if (!retryable && attempt >= GIVE_UP_AFTER) {
            new Logger('FoldedRows').error({ msg: 'read-model row not written: given up', row: id, error: (err as Error)?.message });
            return;
          }
          await new Promise((r) => setTimeout(r, Math.min(15_000, 250 * 2 ** (attempt - 1))));
          held.base = await this.rows.get(id).catch(() => held.base);
          held.value = held.steps.reduce<T | null>((row, s) => s(row), held.base?.value ?? null) as T;
        }
      }
    })().finally(() => {
      this.writing.delete(id);
      held.resolve();
    });
    this.writing.set(id, done);
    return done;
  }

  /** Writes `steps` folded on `base` (`value`: already folded), expecting base's revision; a conflict reads and folds again. */
  private async write(id: string, base: StoredDocument<T> | null, steps: Step<T>[], value = steps.reduce<T | null>((row, s) => s(row), base?.value ?? null) as T): Promise<T | null> {
    for (let attempt = 1; ; attempt++) {
      if (base && value === base.value) return null;
      let written: StoredDocument<T>;
      try {
        written = base ? await this.rows.replace(id, value, base.revision) : await this.create(id, value);
      } catch (err) {
        this.open.delete(id);
        if (!(err instanceof DocumentConflictError) || attempt >= 3) throw err;
        base = await this.rows.get(id);
        value = steps.reduce<T | null>((row, s) => s(row), base?.value ?? null) as T;
        continue;
      }
      this.remember(written, value);
      return value;
    }
  }

  private async create(id: string, row: T): Promise<StoredDocument<T>> {
    const { created, doc } = await this.rows.create(id, row);
    if (!created) throw new DocumentConflictError({ collection: 'folded rows', id, expectedRevision: 0, actualRevision: doc.revision });
    return doc;
  }

  /** Keeps an open run's row as written; decided on the row folded (`value`), so a closed run's row is never parsed back. */
  private remember(doc: StoredDocument<T>, value: T): void {
    if (this.stillOpen(value)) this.open.set(doc.id, doc);
    else this.open.delete(doc.id);
  }
}

/** How long the ledger holds an open run's row unwritten (issue 22): a run that ends within it is written once. */
export const ROW_HOLD_MS = 500;

/** The runs whose creation (their first event) is among `events`: their rows are folded `fresh`. */
export function runsCreatedIn(events: readonly StoredEvent[]): Set<string> {
  return new Set(events.filter((e) => e.type === 'RunCreated').map((e) => e.metadata.stream_id));
}
