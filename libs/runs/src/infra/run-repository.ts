import { aggregateRef, AggregateRef, ConcurrencyError, EventLog, foldEvents, NewEvent, RecordedEvent, StoredEvent } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { evolveRun, initialRunState, RunState } from '../domain/run-state';
import { RunCommands, RunSession } from './run-session';
import type { RunCreatedData, RunEvent } from '../domain/run-events';

export interface LoadedRun {
  state: RunState;
  version: number;
  events: StoredEvent[];
}

/** Loads runs by folding their events and appends to them with optimistic concurrency. */
export class RunRepository {
  constructor(readonly log: EventLog) {}

  static ref(runId: string): AggregateRef {
    return aggregateRef('run', runId);
  }

  async load(runId: string): Promise<LoadedRun> {
    const events = await this.log.read(RunRepository.ref(runId));
    const state = foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]);
    return { state, version: events.length ? events[events.length - 1].seq : 0, events };
  }

  /** Appends events decided on `expectedVersion`; metadata links every event to its run tree. */
  async append(run: RunIdentity, events: RunEvent[], opts: { expectedVersion: number; commandId: string }): Promise<LoadedRun['version']> {
    return (await this.appendEvents(run, events, opts)).version;
  }

  /** `decidedAt`: for events decided before this append (RunSession's deferred ones), the time each was decided. */
  async appendEvents(run: RunIdentity, events: RunEvent[], opts: { expectedVersion: number; commandId: string; decidedAt?: readonly string[] }): Promise<{ version: number; events: StoredEvent[]; duplicate: boolean }> {
    const metadata = runMetadata(run);
    const { decidedAt, ...append } = opts;
    return this.log.append(RunRepository.ref(run.run_id), events.map((e, i): NewEvent => ({ type: e.type, data: e.data, metadata: decidedAt?.[i] ? { ...metadata, recorded_at: decidedAt[i] } : metadata })), append);
  }

  /** Loads a run into a session that folds its own appends, so a step never re-reads what it just wrote. */
  async session(run: RunIdentity): Promise<RunSession> {
    const loaded = await this.load(run.run_id);
    return new RunSession(this, run, loaded.state, loaded.version, false, loaded.events);
  }

  /**
   * One command on an existing run by id, for a writer that does not carry the run (an operator's cancel): decided on
   * what the log holds and appended on that version; when the run's carrier appended meanwhile, decided again on the
   * new state, at most `attempts` times. Returns the state after it.
   */
  async handle(runId: string, commands: RunCommands, label: string, attempts = 5): Promise<RunState> {
    for (let attempt = 1; ; attempt++) {
      const { state, version } = await this.load(runId);
      if (!state.run) throw new AppError('RUN.NOT_FOUND');
      const session = new RunSession(this, state.run, state, version);
      try {
        await session.decide(commands, label);
        return session.state;
      } catch (err) {
        if (!(err instanceof ConcurrencyError) || attempt >= attempts) throw err;
      }
    }
  }

  /** A session for a run believed new, without a lookup: its first append expects version 0 (see openNewChild). */
  fresh(run: RunIdentity): RunSession {
    return new RunSession(this, run, initialRunState(), 0, true);
  }
}

export type RunIdentity = Pick<RunCreatedData, 'run_id' | 'root_run_id' | 'parent_run_id' | 'case_id' | 'correlation_id' | 'user_id'>;

export function runMetadata(run: RunIdentity): NewEvent['metadata'] {
  return {
    run_id: run.run_id,
    root_run_id: run.root_run_id,
    ...(run.parent_run_id ? { parent_run_id: run.parent_run_id } : {}),
    ...(run.case_id ? { case_id: run.case_id } : {}),
    // Whose data key seals the run's personal data (issue 9 erasure).
    ...(run.user_id ? { user_id: run.user_id } : {}),
    ...(run.correlation_id ? { correlation_id: run.correlation_id } : {}),
  };
}

