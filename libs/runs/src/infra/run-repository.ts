import { AggregateRef, ConcurrencyError, EventLog, foldEvents, NewEvent, RecordedEvent, StoredEvent } from '@runledger/event-log';
import { AppError, LruMap } from '@runledger/kernel';
import { evolveRun, initialRunState, RunState } from '../domain/run-state';
import { legacyRunSubject, ownerOfKind, ownerSubjectsOf, parseRunSubject, RUN_OWNERS, RunOwner, runOwnership, runSubject } from '../domain/run-ownership';
import { RunCommands, RunSession } from './run-session';
import type { RunCreatedData, RunEvent } from '../domain/run-events';

export interface LoadedRun {
  state: RunState;
  version: number;
  events: StoredEvent[];
}

/** How many runs' owners (and frozen legacy versions) a repository remembers: both never change once known. */
const CACHE_LIMIT = 20_000;

/**
 * Loads runs by folding their events and appends to them with optimistic concurrency. A run lives on its owner's
 * subject (rl.log.run.<owner>.<run_id>, domain/run-ownership.ts); a run begun before issue 23 has its first events on
 * the legacy subject rl.log.run.<run_id>, which nobody may append to any more, and continues on its owner's. Readers
 * serve only what the owner wrote: a run that is not (see runOwnership) is RUN.FORGED.
 */
export class RunRepository {
  private readonly owners = new LruMap<string, RunOwner>(CACHE_LIMIT);
  private readonly legacyVersions = new LruMap<string, number>(CACHE_LIMIT);
  private legacy?: Promise<boolean>;
  /** The owner of the last calling run `callerLastCommit` found opened lawfully: where it looks first next time. */
  private lastCallerOwner?: RunOwner;

  constructor(readonly log: EventLog) {}

  /** The subject `owner` appends run `runId` on. */
  static ref(runId: string, owner: RunOwner): AggregateRef {
    return { kind: 'run', id: runId, subject: runSubject(owner, runId) };
  }

  /**
   * The subject a run's events are appended on: its kind's owner's; a run whose kind the writer does not name is its
   * own (every writer that creates runs names the kind in RunCreated, which readers check against the subject).
   */
  refOf(run: Pick<RunIdentity, 'run_id' | 'run_kind'>): AggregateRef {
    return { kind: 'run', id: run.run_id, subject: `${runSubject((ownerOfKind(run.run_kind) ?? this.log.producer) as RunOwner, run.run_id)}` };
  }

  async load(runId: string): Promise<LoadedRun> {
    const { events, ownerVersion } = await this.read(runId);
    const state = foldEvents(evolveRun, initialRunState(), events as unknown as RecordedEvent[]);
    // The owner's subject as read (EventLog.readAggregate): past a last message that holds no events, never behind it.
    const last = events.length ? events[events.length - 1].seq : 0;
    return { state, version: Math.max(last, ownerVersion), events };
  }

  /** The run's events as its owner wrote them (none: no such run); RUN.FORGED when they are not. */
  async events(runId: string): Promise<StoredEvent[]> {
    return (await this.read(runId)).events;
  }

  /** The run's events (see events), and its owner's subject's version as read (0 when its owner was not known first). */
  private async read(runId: string): Promise<{ events: StoredEvent[]; ownerVersion: number }> {
    const owner = await this.ownerOf(runId);
    const ownerRead = owner ? await this.log.readAggregate(runSubject(owner, runId)) : undefined;
    const found = ownerRead
      ? [...(await this.legacyEvents(runId)), ...ownerRead.events]
      // No lawful creation is the first thing under this id: nothing, or something forged (or a squatter first).
      : [...(await this.legacyEvents(runId)), ...(await this.log.read(ownerSubjectsOf(runId)))];
    const run = runOwnership(found);
    if (!run.owner) {
      if (run.forgeries.length) throw forged(runId, run.forgeries[0].reason);
      return { events: [], ownerVersion: 0 };
    }
    if (run.events.length && !owner) this.owners.set(runId, run.owner);
    return { events: run.events, ownerVersion: ownerRead?.version ?? 0 };
  }

  /**
   * The run's owner: the creator of its kind, read from its first event (the legacy subject's for a run begun before
   * issue 23, else the first under any owner's name); null when that first event is no lawful creation (no run, a
   * forged one, or events under its id on another service's subject first: `events` then reads them all).
   */
  async ownerOf(runId: string): Promise<RunOwner | null> {
    const known = this.owners.get(runId);
    if (known) return known;
    const first = ((await this.hasLegacy()) ? await this.log.first(legacyRunSubject(runId)) : null) ?? (await this.firstUnderAnyOwner(runId));
    const owner = first ? runOwnership([first]).owner ?? null : null;
    if (owner) this.owners.set(runId, owner);
    return owner;
  }

  /**
   * The first event under any owner's name (rl.log.run.<owner>.<run_id>; only an owner may append under its name,
   * permissions.yaml `append: self`): one exact-subject get per owner, side by side. A wildcard get of the first
   * match is answered by nats-server 2.9 with a scan of the log from its start, a cost that grows with the log.
   */
  private async firstUnderAnyOwner(runId: string): Promise<StoredEvent | null> {
    const firsts = await Promise.all(RUN_OWNERS.map((owner) => this.log.first(runSubject(owner, runId))));
    return firsts.reduce<StoredEvent | null>((earliest, e) => (e && (!earliest || e.seq < earliest.seq) ? e : earliest), null);
  }

  /** The run's RunCreated if its owner created it (the caller check's record of a calling run), else null. */
  async created(runId: string): Promise<StoredEvent | null> {
    if (!this.owners.get(runId) && !(await this.hasLegacy())) {
      // The first event under any owner's name is the RunCreated when it is a lawful creation (on its owner's subject).
      const first = await this.firstUnderAnyOwner(runId);
      const owner = first ? runOwnership([first]).owner : undefined;
      if (!owner) return null;
      this.owners.set(runId, owner);
      return first;
    }
    const owner = await this.ownerOf(runId);
    if (!owner) return null;
    return ((await this.hasLegacy()) ? await this.log.first(legacyRunSubject(runId)) : null) ?? this.log.first(runSubject(owner, runId));
  }

  /**
   * The events of the run's last commit (none: no run), in one get where the owner is known: its owner's subject, or
   * the legacy subject for a run not yet continued. `owner`: who the caller knows owns it (a waiter, for its own runs).
   */
  async lastCommit(runId: string, owner?: RunOwner, opts: { sealed?: boolean } = {}): Promise<StoredEvent[]> {
    const by = owner ?? (await this.ownerOf(runId));
    if (!by) return [];
    const own = await this.log.lastCommit(runSubject(by, runId), opts);
    return own.length || !(await this.hasLegacy()) ? own : this.log.lastCommit(legacyRunSubject(runId), opts);
  }

  /**
   * A calling run's last commit for a choke point, in one get where one is enough (issue 22): the last commit under
   * any owner's name (`rl.log.run.*.<run_id>`). When that commit opens the run lawfully on its own owner's subject
   * (a caller's first request goes out with its opening), it names the owner and holds the RunCreated: nothing more is
   * read. Otherwise (an owner already known, a run that has gone on since its opening, a legacy log, a forgery) the
   * owner is looked up as `ownerOf` does and the owner's last commit read, as before. The events come sealed (the
   * check reads ids, types and the RunCreated's unsealed fields: nothing is decrypted for it).
   *
   * The get names the owner its last caller had (a choke point's callers are nearly always runs of one service: the
   * tool gateway's decision's, db-write's the tool gateway's), on an exact subject; only when nothing is there does it
   * look under any owner's name. nats-server 2.9 answers a wildcard last-by-subject get by matching every subject of
   * the log's current block against the filter: it was a quarter of the server's CPU per request (bench/results.md).
   * The commit found is checked exactly as the wildcard's would be. Where a run id has lawful openings under two
   * owners (one service squatting another's id with a run of its own kind), the guessed owner's is taken, as the
   * wildcard took the later one: either is a run its owner may create, so no caller gains what its own run lacks.
   */
  async callerLastCommit(runId: string): Promise<StoredEvent[]> {
    const sealed = { sealed: true };
    const known = this.owners.get(runId);
    if (known || (await this.hasLegacy())) return this.lastCommit(runId, known, sealed);
    const guess = this.lastCallerOwner;
    let last = guess ? await this.log.lastCommit(runSubject(guess, runId), sealed) : [];
    if (!last.length) last = await this.log.lastCommit(ownerSubjectsOf(runId), sealed);
    const opening = last[0]?.type === 'RunCreated' ? runOwnership(last) : undefined;
    const owner = opening && !opening.forgeries.length ? opening.owner : undefined;
    if (!owner || parseRunSubject(last[0].subject)?.owner !== owner) return this.lastCommit(runId, undefined, sealed);
    this.owners.set(runId, owner);
    this.lastCallerOwner = owner;
    return last;
  }

  /** Appends events decided on `expectedVersion`; metadata links every event to its run tree. */
  async append(run: RunIdentity, events: RunEvent[], opts: { expectedVersion: number; commandId: string }): Promise<LoadedRun['version']> {
    return (await this.appendEvents(run, events, opts)).version;
  }

  /** `decidedAt`: for events decided before this append (RunSession's deferred ones), the time each was decided. */
  async appendEvents(run: RunIdentity, events: RunEvent[], opts: { expectedVersion: number; commandId: string; decidedAt?: readonly string[] }): Promise<{ version: number; events: StoredEvent[]; duplicate: boolean }> {
    const metadata = runMetadata(run);
    const { decidedAt, ...append } = opts;
    const ref = this.refOf(run);
    const expectedVersion = await this.subjectVersion(run.run_id, ref.subject, opts.expectedVersion);
    return this.log.append(ref, events.map((e, i): NewEvent => ({ type: e.type, data: e.data, metadata: decidedAt?.[i] ? { ...metadata, recorded_at: decidedAt[i] } : metadata })), { ...append, expectedVersion });
  }

  /**
   * The owner's subject's expected last sequence for an append decided on run version `version`. A run begun on the
   * legacy subject continues on its owner's: decided on the legacy subject's last event, the owner's subject must still
   * be empty (0); decided on 0, the legacy subject must be empty too (the run would exist after all).
   */
  private async subjectVersion(runId: string, subject: string, version: number): Promise<number> {
    if (!(await this.hasLegacy())) return version;
    const legacy = await this.legacyVersion(runId);
    if (version === 0 && legacy > 0) throw new ConcurrencyError(subject, version);
    return legacy > 0 && version === legacy ? 0 : version;
  }

  /** The legacy subject's last sequence for this run (0: none); frozen, so remembered. */
  private async legacyVersion(runId: string): Promise<number> {
    const known = this.legacyVersions.get(runId);
    if (known !== undefined) return known;
    const version = await this.log.version(legacyRunSubject(runId));
    this.legacyVersions.set(runId, version);
    return version;
  }

  private async legacyEvents(runId: string): Promise<StoredEvent[]> {
    if (!(await this.hasLegacy()) || (await this.legacyVersion(runId)) === 0) return [];
    return this.log.read(legacyRunSubject(runId));
  }

  /**
   * Whether the log holds any run on the legacy subject (a data directory of release c732176 or earlier). Nobody may
   * append there, so a log without one never gets one: asked once per process, and every legacy read is skipped.
   */
  private hasLegacy(): Promise<boolean> {
    this.legacy ??= this.log.version(legacyRunSubject('*')).then((v) => v > 0, (err: unknown) => {
      this.legacy = undefined;
      throw err;
    });
    return this.legacy;
  }

  /** Loads a run into a session that folds its own appends, so a step never re-reads what it just wrote. */
  async session(run: RunIdentity): Promise<RunSession> {
    const loaded = await this.load(run.run_id);
    // No run yet: its opening goes after whatever the server stored on its subject first (a message no writer made,
    // which every reader skips), not on 0, which would conflict for good (probe: a run id planted that way).
    const version = loaded.events.length ? loaded.version : await this.log.version(this.refOf(run).subject);
    return new RunSession(this, run, loaded.state, version, false, loaded.events);
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

/** A run readers do not serve: events under its id that its owner did not write (issue 23). */
export function forged(runId: string, reason: string): AppError {
  return new AppError('RUN.FORGED', `Run ${runId} is forged: ${reason}.`);
}

export type RunIdentity = Pick<RunCreatedData, 'run_id' | 'root_run_id' | 'parent_run_id' | 'case_id' | 'correlation_id' | 'user_id'> & Partial<Pick<RunCreatedData, 'run_kind'>>;

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
