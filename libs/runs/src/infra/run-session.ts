import { aggregateRef, ConcurrencyError, foldEvents, RecordedEvent } from '@runledger/event-log';
import { decideRun, RunCommand } from '../domain/run.decider';
import type { RunEvent } from '../domain/run-events';
import { evolveRun, RunState } from '../domain/run-state';
import type { RunIdentity, RunRepository } from './run-repository';

/** A command, or commands decided on the run's state at the moment the append gets its turn. */
export type RunCommands = RunCommand | RunCommand[] | ((state: RunState) => RunCommand | RunCommand[]);

/**
 * The single writer of one run while a carrier holds it. Every write is a command decided by the run decider
 * on the state this writer last saw, and appended on that version (optimistic concurrency: a second carrier of
 * the same run fails with a ConcurrencyError instead of interleaving) under a command id derived from the run
 * and a label, so a retried append deduplicates. Parallel steps of one run write through this one session:
 * writes queue, each decided on the state the last one left. State advances by folding the appended events
 * (the fold a replay uses), so a step never re-reads what it just wrote.
 */
export class RunSession {
  private tail: Promise<void> = Promise.resolve();
  /** True when every event of the last append was already in the log (a retried command). */
  lastAppendDuplicate = false;

  constructor(private readonly repo: RunRepository, readonly run: RunIdentity, public state: RunState, public version: number) {}

  /** Decides the command(s) and appends what they decide (nothing decided: no append). */
  decide(commands: RunCommands, label: string): Promise<void> {
    return this.queue(async () => {
      const decided = typeof commands === 'function' ? commands(this.state) : commands;
      let state = this.state;
      const events: RunEvent[] = [];
      for (const command of Array.isArray(decided) ? decided : [decided]) {
        const next = decideRun(command, state);
        state = foldEvents(evolveRun, state, next.map((e) => ({ ...e, metadata: { recorded_at: this.state.updated_at ?? '' } })) as RecordedEvent[]);
        events.push(...next);
      }
      if (events.length === 0) return;
      const result = await this.repo.appendEvents(this.run, events, { expectedVersion: this.version, commandId: `${this.run.run_id}:${label}` });
      // A duplicate is what the log holds under our ids; one of another type is not a retry of this decision
      // (an earlier attempt decided otherwise under the same label): a conflict to decide again on, never our outcome.
      if (result.events.some((stored, i) => stored.type !== events[i]?.type)) throw new ConcurrencyError(aggregateRef('run', this.run.run_id).subject, this.version); // RunRepository.ref's subject (not imported: it imports this file)
      this.state = foldEvents(evolveRun, this.state, result.events as unknown as RecordedEvent[]);
      this.version = result.version;
      this.lastAppendDuplicate = result.duplicate;
    });
  }

  /** Reads the run again (another writer may have recorded a cancel request); queued like writes. */
  reload(): Promise<void> {
    return this.queue(async () => {
      const loaded = await this.repo.load(this.run.run_id);
      this.state = loaded.state;
      this.version = loaded.version;
    });
  }

  private queue(work: () => Promise<void>): Promise<void> {
    const next = this.tail.catch(() => undefined).then(work);
    this.tail = next;
    return next;
  }
}
