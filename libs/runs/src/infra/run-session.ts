import { ConcurrencyError, foldEvents, RecordedEvent, type StoredEvent } from '@runledger/event-log';
import { sha256Hex } from '@runledger/kernel';
import { decideRun, RunCommand } from '../domain/run.decider';
import type { RunEvent } from '../domain/run-events';
import { evolveRun, RunState } from '../domain/run-state';
import type { RunIdentity, RunRepository } from './run-repository';

/** A command, or commands decided on the run's state at the moment the append gets its turn. */
export type RunCommands = RunCommand | RunCommand[] | ((state: RunState) => RunCommand | RunCommand[]);

/** Decided events not yet appended: they go first in the run's next append, one commit with it. */
interface Pending {
  /** The state before them (what the log holds): the append's events are folded onto it. */
  base: RunState;
  events: RunEvent[];
  /** When each was decided: its recorded_at in the log, so the state folded here is the log's. */
  decidedAt: string[];
}

/**
 * The single writer of one run while a carrier holds it. Every write is a command decided by the run decider
 * on the state this writer last saw, and appended on that version (optimistic concurrency: a second carrier of
 * the same run fails with a ConcurrencyError instead of interleaving) under a command id derived from the run
 * and a label, so a retried append deduplicates. Parallel steps of one run write through this one session:
 * writes queue, each decided on the state the last one left. State advances by folding the appended events
 * (the fold a replay uses), so a step never re-reads what it just wrote.
 *
 * A deferred decision (`{ defer: true }`) is folded into the state at once but appended with the run's next write, in
 * the same commit: one message fewer, for decisions no effect outside the run depends on before that write (an
 * opening before the run's first effect, a checkpoint, a tool call's recorded outcome). A crash before that write
 * loses them, and the carrier that resumes decides them again from what the log holds.
 */
export class RunSession {
  private tail: Promise<void> = Promise.resolve();
  private pending: Pending | undefined;

  /**
   * `believedNew`: a session started without reading the log (RunRepository.fresh). Until its first append lands, a
   * duplicate answer means the run exists after all (an earlier carrier wrote the same opening): a conflict, so its
   * carrier loads the run instead of going on from an opening it did not write.
   * `loaded`: the run's events as this session read them (none for a fresh session): a carrier that needs more than the
   * fold (a session's journal) reads them here instead of reading the run again.
   */
  constructor(private readonly repo: RunRepository, readonly run: RunIdentity, public state: RunState, public version: number, private believedNew = false, readonly loaded: readonly StoredEvent[] = []) {}

  /** Decides the command(s) and appends what they decide, after any deferred events (nothing decided: no append). */
  decide(commands: RunCommands, label: string, opts: { defer?: boolean } = {}): Promise<void> {
    return this.queue(async () => {
      const decided = typeof commands === 'function' ? commands(this.state) : commands;
      // Deferred events carry the time they were decided at; others are re-folded from what the log stores.
      const at = opts.defer ? this.repo.log.clock.now().toISOString() : (this.state.updated_at ?? '');
      let state = this.state;
      const events: RunEvent[] = [];
      const list = Array.isArray(decided) ? decided : [decided];
      for (let i = 0; i < list.length; i++) {
        const next = decideRun(list[i], state);
        // What the last command decides is folded once, from what the append stores (below), unless it is deferred.
        if (opts.defer || i < list.length - 1) state = foldEvents(evolveRun, state, next.map((e) => ({ ...e, metadata: { recorded_at: at } })) as RecordedEvent[]);
        events.push(...next);
      }
      if (opts.defer) {
        if (!events.length) return;
        this.pending ??= { base: this.state, events: [], decidedAt: [] };
        this.pending.events.push(...events);
        this.pending.decidedAt.push(...events.map(() => at));
        this.state = state;
        return;
      }
      await this.append(events, label);
    });
  }

  /** Appends the deferred events now (before an effect outside the run that depends on them). */
  flush(label: string): Promise<void> {
    return this.queue(() => this.append([], label));
  }

  /** The decided events that wait for the next append. */
  get pendingEvents(): readonly RunEvent[] {
    return this.pending?.events ?? [];
  }

  private async append(events: RunEvent[], label: string): Promise<void> {
    const pending = this.pending;
    const all = pending ? [...pending.events, ...events] : events;
    if (all.length === 0) return;
    // With deferred events the label carries a digest of them, so the append's event ids are those of this content:
    // a retry of the same append deduplicates, while another carrier that decided them differently writes other ids
    // on the same version and gets a ConcurrencyError (nothing of it appended) instead of being handed our events as
    // duplicates of its own.
    const commandLabel = pending ? `${label}+${sha256Hex(JSON.stringify(pending.events)).slice(0, 16)}` : label;
    const result = await this.repo.appendEvents(this.run, all, { expectedVersion: this.version, commandId: `${this.run.run_id}:${commandLabel}`, ...(pending ? { decidedAt: pending.decidedAt } : {}) });
    // A duplicate is what the log holds under our ids; one of another type is not a retry of this decision
    // (an earlier attempt decided otherwise under the same label): a conflict to decide again on, never our outcome.
    if (result.events.length !== all.length || result.events.some((stored, i) => stored.type !== all[i]?.type) || (this.believedNew && result.duplicate)) throw new ConcurrencyError(this.repo.refOf(this.run).subject, this.version);
    // Stored as sent, the deferred events are what this.state already folded (same data, recorded_at the time each was
    // decided): only this append's own are folded on, with the time the log stamped. A duplicate is the log's
    // (decided earlier, at other times): folded whole from the state before it.
    const stored = result.events as unknown as RecordedEvent[];
    this.state = result.duplicate ? foldEvents(evolveRun, pending?.base ?? this.state, stored) : foldEvents(evolveRun, this.state, stored.slice(pending?.events.length ?? 0));
    this.version = result.version;
    this.pending = undefined;
    this.believedNew = false;
  }

  /**
   * Reads the run again (another writer may have recorded a cancel request); queued like writes. Deferred events are
   * appended first (an effect may already depend on one, such as a tool call's outcome): a reload never drops them.
   */
  reload(): Promise<void> {
    return this.queue(async () => {
      if (this.pending) await this.append([], 'reload');
      const loaded = await this.repo.load(this.run.run_id);
      this.state = loaded.state;
      this.version = loaded.version;
      this.pending = undefined;
    });
  }

  /**
   * Reads the run again and drops the deferred events instead of appending them: for a run whose owner's data was
   * erased, whose deferred records (checkpoints, tool results) can no longer be sealed, so nothing of them is stored.
   */
  reloadDiscarding(): Promise<void> {
    return this.queue(async () => {
      this.pending = undefined;
      const loaded = await this.repo.load(this.run.run_id);
      this.state = loaded.state;
      this.version = loaded.version;
      this.believedNew = false;
    });
  }

  private queue(work: () => Promise<void>): Promise<void> {
    const next = this.tail.catch(() => undefined).then(work);
    this.tail = next;
    return next;
  }
}
