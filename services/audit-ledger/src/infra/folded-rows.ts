import { DocumentConflictError, type DocumentCollection, type StoredDocument } from '@runledger/document-store';
import type { StoredEvent } from '@runledger/event-log';
import { Logger } from '@nestjs/common';
import { AppError, LruMap } from '@runledger/kernel';
import { RETRY, retrying } from '@runledger/runs';

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
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
}

/** One attempt at writing a held row. */
type Attempt = { ok: true } | { ok: false; error: unknown; retryable: boolean };

/**
 * A read model whose rows the ledger folds events into, one row per run. Each write expects the revision the row
 * was read at, so a row another ledger instance wrote meanwhile (the consumer lease moved and came back) is a
 * conflict: read afresh and folded again. Rows of runs still open are kept with their revision, so the next batch
 * of a run needs no read.
 *
 * Folded with `holdMs` (issue 22: a run's row written once, not once per batch its events fall into), the row of a run still
 * open is held in memory, unwritten, until the run ends or `holdMs` has passed; `settled()` says when everything
 * folded so far is written, and the ledger's batch is acked only then (a DeferredSettlement), so a crash loses no fold:
 * the unacked events are delivered again. A held row is written again as RETRY.ledgerRow says; a row never written
 * makes `settled()` reject, so its batch is never acked (handled again, or dead-lettered past maxDeliver).
 */
export class FoldedRows<T extends object> {
  private readonly open = new LruMap<string, StoredDocument<T>>(OPEN_ROWS_KEPT);
  private readonly held = new Map<string, Held<T>>();
  private readonly writing = new Map<string, Promise<void>>();
  /** The last fold of each row still running (see fold): settles, never rejects. */
  private readonly folding = new Map<string, Promise<void>>();
  /** Held rows a fold wrote (its run ended) and could not: reported by the next settled(), the fold's batch's. */
  private failed: Promise<void>[] = [];

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
  fold(id: string, step: Step<T>, opts: { fresh?: boolean; holdMs?: number } = {}): Promise<T | null> {
    // One fold of a row at a time: a batch that failed may still be folding while its commits are handled again, and
    // two folds that both read the stored row would each hold their own copy (one step lost, one settlement never resolved).
    const before = this.folding.get(id);
    const folded = before ? before.then(() => this.foldInTurn(id, step, opts)) : this.foldInTurn(id, step, opts);
    const turn = folded.then(() => undefined, () => undefined);
    this.folding.set(id, turn);
    void turn.then(() => this.folding.get(id) === turn && this.folding.delete(id));
    return folded;
  }

  private async foldInTurn(id: string, step: Step<T>, opts: { fresh?: boolean; holdMs?: number }): Promise<T | null> {
    // A held row being written: fold on what it wrote (a write that failed is its own batch's to report, see settled).
    await this.writing.get(id)?.catch(() => undefined);
    const held = this.held.get(id);
    if (held) {
      const next = step(held.value);
      if (next === held.value) return null;
      held.value = next;
      held.steps.push(step);
      if (!this.stillOpen(next)) {
        const flushed = this.flush(id);
        await flushed.catch(() => void this.failed.push(flushed));
      }
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

  /** Resolves once every row folded so far is written; rejects when one never was (see RETRY.ledgerRow). */
  settled(): Promise<void> {
    const failed = this.failed.splice(0);
    return Promise.all([...[...this.held.values()].map((h) => h.written), ...this.writing.values(), ...failed]).then(() => undefined);
  }

  private hold(id: string, base: StoredDocument<T> | null, value: T, step: Step<T>, holdMs: number): void {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const written = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    written.catch(() => undefined); // reported by the settled() that took it; a flush by the timer has no other awaiter
    const held: Held<T> = { base, value, steps: [step], written, resolve, reject };
    held.timer = setTimeout(() => void this.flush(id), holdMs);
    held.timer.unref();
    this.held.set(id, held);
  }

  /** Writes a held row now, again as RETRY.ledgerRow says while it fails retryably; rejects (and its `written`) when it never is. */
  private flush(id: string): Promise<void> {
    const held = this.held.get(id);
    if (!held) return this.writing.get(id) ?? Promise.resolve();
    this.held.delete(id);
    clearTimeout(held.timer);
    const done = retrying(RETRY.ledgerRow, (n) => this.writeHeld(id, held, n), (r) => r.ok || !r.retryable, unrefSleep)
      .then(({ result, attempts }) => {
        if (result.ok) return;
        new Logger('FoldedRows').error({ msg: 'read-model row not written: its batch is not acked', row: id, attempts, error: (result.error as Error)?.message });
        throw result.error;
      })
      .finally(() => this.writing.delete(id));
    done.then(held.resolve, held.reject);
    this.writing.set(id, done);
    return done;
  }

  /** Attempt `n` (0-based) at writing a held row; after a failure, its steps are folded again on the row as stored. */
  private async writeHeld(id: string, held: Held<T>, n: number): Promise<Attempt> {
    try {
      if (n > 0) {
        held.base = await this.rows.get(id);
        held.value = held.steps.reduce<T | null>((row, s) => s(row), held.base?.value ?? null) as T;
      }
      await this.write(id, held.base, held.steps, held.value);
      return { ok: true };
    } catch (error) {
      return { ok: false, error, retryable: error instanceof AppError ? error.retryable : true };
    }
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

/** A retry's pause that keeps no stopping process alive. */
const unrefSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** How long the ledger holds an open run's row unwritten (issue 22): a run that ends within it is written once. */
export const ROW_HOLD_MS = 500;

/** The runs whose creation (their first event) is among `events`: their rows are folded `fresh`. */
export function runsCreatedIn(events: readonly StoredEvent[]): Set<string> {
  return new Set(events.filter((e) => e.type === 'RunCreated').map((e) => e.metadata.stream_id));
}
