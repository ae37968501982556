import { aggregateRef, AggregateRef, ConcurrencyError, EventLog, foldEvents, NewEvent, RecordedEvent, StoredEvent } from '@runledger/event-log';
import { AppError } from '@runledger/kernel';
import { evolveRun, initialRunState, isTerminal, RunState } from '../domain/run-state';
import type { AuthzDecidedData, RunCreatedData, RunError, RunEvent, ArtifactRefLike } from '../domain/run-events';

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

  async appendEvents(run: RunIdentity, events: RunEvent[], opts: { expectedVersion: number; commandId: string }): Promise<{ version: number; events: StoredEvent[]; duplicate: boolean }> {
    const metadata = runMetadata(run);
    return this.log.append(RunRepository.ref(run.run_id), events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata })), opts);
  }

  /** Loads a run into a session that folds its own appends, so a step never re-reads what it just wrote. */
  async session(run: RunIdentity): Promise<RunSession> {
    const loaded = await this.load(run.run_id);
    return new RunSession(this, run, loaded.state, loaded.version);
  }

  /**
   * A session for a run believed new, without a lookup: it appends `created` at version 0. The log refuses that
   * (conflict) or recognises it (duplicate: a retry within the duplicate window) when the run exists; then
   * null, and the caller loads the run as it is.
   */
  async claimNew(run: RunIdentity, created: RunEvent): Promise<RunSession | null> {
    try {
      // The label of a run's first opening append (RunSession.open), so a run opened either way deduplicates.
      const result = await this.appendEvents(run, [created], { expectedVersion: 0, commandId: `${run.run_id}:open@0` });
      if (result.duplicate) return null;
      return new RunSession(this, run, foldEvents(evolveRun, initialRunState(), result.events as unknown as RecordedEvent[]), result.version);
    } catch (err) {
      if (err instanceof ConcurrencyError) return null;
      throw err;
    }
  }
}

export type RunIdentity = Pick<RunCreatedData, 'run_id' | 'root_run_id' | 'parent_run_id' | 'case_id' | 'correlation_id' | 'user_id'>;

/**
 * One writer's view of a run: state and version advance with each append by folding the appended events
 * (the same fold a replay uses). A ConcurrencyError means another writer moved the run: reload and decide again.
 */
export class RunSession {
  constructor(private readonly repo: RunRepository, readonly run: RunIdentity, public state: RunState, public version: number) {}

  async append(events: RunEvent[], label: string): Promise<void> {
    const result = await this.repo.appendEvents(this.run, events, { expectedVersion: this.version, commandId: `${this.run.run_id}:${label}` });
    this.state = foldEvents(evolveRun, this.state, result.events as unknown as RecordedEvent[]);
    this.version = result.version;
  }

  /**
   * Appends what is missing of the run's opening (RunCreated, AuthzDecided, then RunStarted or RunDenied).
   * Events are appended one by one, so a crash can leave a prefix of the opening in the log; the resumed
   * writer completes it instead of finding the run stuck in `created` or `authorized`.
   */
  async open(opening: RunEvent[]): Promise<void> {
    if (this.state.status === 'running' || isTerminal(this.state)) return;
    const present = this.state.event_count;
    if (present < opening.length) await this.append(opening.slice(present), `open@${present}`);
  }

  async reload(): Promise<void> {
    const loaded = await this.repo.load(this.run.run_id);
    this.state = loaded.state;
    this.version = loaded.version;
  }
}

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

export interface ChildRunSpec {
  created: RunCreatedData;
  /** Decided from the policy versions pinned in `created`. */
  authz: AuthzDecidedData;
}

export interface EffectOutcome<T> {
  status: 'completed' | 'failed';
  result?: T;
  error?: RunError;
  /** Audit events of the effect (ToolCallAudited, DbWriteAudited …), appended with the terminal event. */
  audit: RunEvent[];
  output_artifacts?: ArtifactRefLike[];
  response_hash_sha256?: string;
}

export interface ChildRunOutcome<T> {
  child_run_id: string;
  status: 'completed' | 'failed' | 'denied';
  result?: T;
  error?: RunError;
  /** The outcome was already in the log: the effect did not run again. */
  replayed: boolean;
  state: RunState;
}

/**
 * Runs one governed child run (tool_gateway, db_write, promotion, export) at most once per id:
 * the recorded outcome is looked up before the effect runs, authorization is recorded before it,
 * and the audit events and terminal outcome are appended together after it. The effect itself must be
 * idempotent (derived ids) because a crash between effect and append re-runs it.
 */
export async function runChildOnce<T>(repo: RunRepository, spec: ChildRunSpec, effect: () => Promise<EffectOutcome<T>>): Promise<ChildRunOutcome<T>> {
  const runId = spec.created.run_id;
  for (let attempt = 1; attempt <= 5; attempt++) {
    // A child run id is new except on a retry: the first attempt claims it at version 0 instead of looking it up.
    const session = (attempt === 1 && (await repo.claimNew(spec.created, { type: 'RunCreated', data: spec.created }))) || (await repo.session(spec.created));
    // The id derives from (parent, action id): the same id with another request is a caller bug, never a replay.
    if (session.state.run && session.state.run.request_hash_sha256 !== spec.created.request_hash_sha256) {
      throw new AppError('REQUEST.INVALID', 'That action id was already used for a different request.');
    }
    if (isTerminal(session.state)) return outcomeOf<T>(runId, session.state, true);
    try {
      const opening: RunEvent[] = [{ type: 'RunCreated', data: spec.created }, { type: 'AuthzDecided', data: spec.authz }];
      if (spec.authz.decision === 'deny') {
        const error = { error_code: spec.authz.code ?? 'LANE.DENIED', message: spec.authz.reason ?? 'Denied by policy.', retryable: false };
        opening.push({ type: 'RunDenied', data: { error } });
      } else opening.push({ type: 'RunStarted', data: {} });
      await session.open(opening);
      if (isTerminal(session.state)) return outcomeOf<T>(runId, session.state, false);
      // Only a run the log shows as authorised may have its effect run.
      if (session.state.status !== 'running' || session.state.authz?.decision !== 'allow') {
        throw new AppError('INTERNAL', 'The child run is not in a state to run its effect.');
      }
      const out = await effect();
      const terminal: RunEvent =
        out.status === 'completed'
          ? { type: 'RunCompleted', data: { output_artifacts: out.output_artifacts ?? [], result: out.result, ...(out.response_hash_sha256 ? { response_hash_sha256: out.response_hash_sha256 } : {}) } }
          : { type: 'RunFailed', data: { error: out.error ?? { error_code: 'INTERNAL', message: 'The action failed.', retryable: true } } };
      await session.append([...out.audit, terminal], 'close');
      return outcomeOf<T>(runId, session.state, false);
    } catch (err) {
      if (err instanceof ConcurrencyError) continue; // someone else advanced this child run: look again
      throw err;
    }
  }
  throw new ConcurrencyError(RunRepository.ref(runId).subject, -1);
}

/**
 * What the log says about a child run whose reply was lost (a restart, a crash mid-call): its recorded outcome;
 * `absent` when it never started (so its effect never ran); `open` when it started and has no outcome yet, which
 * means "unknown", never "failed": the caller asks again (the same id resumes the same run) until it is resolved.
 */
export async function childOutcomeFromLog<T>(repo: RunRepository, runId: string): Promise<ChildRunOutcome<T> | 'absent' | 'open'> {
  const { state } = await repo.load(runId);
  if (state.status === 'none') return 'absent';
  return isTerminal(state) ? outcomeOf<T>(runId, state, true) : 'open';
}

function outcomeOf<T>(runId: string, state: RunState, replayed: boolean): ChildRunOutcome<T> {
  const status = state.status === 'completed' ? 'completed' : state.status === 'denied' ? 'denied' : 'failed';
  return { child_run_id: runId, status, result: state.result as T, error: state.error, replayed, state };
}
