import type { RunCreatedData } from './run-events';

/**
 * Who owns which runs (issue 23): the one table of which service may create which kind of run. The owner is the
 * only service that may append under the run's subject, `rl.log.run.<owner>.<run_id>` (deploy/nats/permissions.yaml
 * gives each its own name only), so the subject says who wrote an event and a service cannot append to another's run.
 */
export const RUN_CREATORS: Readonly<Record<RunCreatedData['run_kind'], RunOwner>> = {
  agent: 'decision', // top-level agent runs, sessions and campaign cycles, and their agent child runs
  tool_gateway: 'tool-gateway',
  db_write: 'db-write',
  artifact_ingest: 'db-write', // a caller's artifact ingest (rl.caller.<caller>.artifacts.ingest)
  promotion: 'promotion',
  export: 'export',
};

export const RUN_OWNERS = ['decision', 'tool-gateway', 'db-write', 'promotion', 'export'] as const;
export type RunOwner = (typeof RUN_OWNERS)[number];

/**
 * The service that, before issue 23 closed the right, could append to runs it does not own (permissions.yaml
 * `control`): an operator's or caller's cancel request, or the resolution of an abandoned run (a commit holding
 * RunResolved, with lifecycle events and audit records marked as its own: isResolutionEvent). The bus no longer lets it
 * (each owner ends its own runs on decision's request, rl.runs.control.<owner>); readers still accept those two from
 * it on another owner's run, so the logs written before read as they did, and nothing else.
 */
export const RUN_CONTROLLER: RunOwner = 'decision';

const RUN_PREFIX = 'rl.log.run.';

/** The subject an owner appends a run's events on. */
export function runSubject(owner: RunOwner, runId: string): string {
  return `${RUN_PREFIX}${owner}.${runId}`;
}

/** The subject runs were appended on before issue 23 (release c732176 and earlier): read forever, appended to never. */
export function legacyRunSubject(runId: string): string {
  return `${RUN_PREFIX}${runId}`;
}

/** Every owner's subject of one run id (a NATS filter): what readers look under besides the legacy subject. */
export function ownerSubjectsOf(runId: string): string {
  return `${RUN_PREFIX}*.${runId}`;
}

/** The run subjects of both formats (rl.log.run.{run_id}, rl.log.run.{owner}.{run_id}): the ledger's and audit's filter. */
export const ALL_RUN_SUBJECTS = `${RUN_PREFIX}>`;

/** The run id and owner a run subject names (owner null: the legacy subject); null for any other subject. */
export function parseRunSubject(subject: string): { runId: string; owner: string | null } | null {
  if (!subject.startsWith(RUN_PREFIX)) return null;
  const rest = subject.slice(RUN_PREFIX.length).split('.');
  if (rest.length === 1 && rest[0]) return { runId: rest[0], owner: null };
  if (rest.length === 2 && rest[0] && rest[1]) return { runId: rest[1], owner: rest[0] };
  return null;
}

/** The owner of a kind of run; undefined for a kind nobody may create. */
export function ownerOfKind(kind: string | undefined): RunOwner | undefined {
  return kind ? (RUN_CREATORS as Record<string, RunOwner | undefined>)[kind] : undefined;
}

/** What the ownership check needs of an event read back from the log. */
export interface OwnedEvent {
  type: string;
  data: unknown;
  seq: number;
  index: number;
  subject: string;
  metadata: { producer?: string };
}

/** A run id's events, split: the run as its owner wrote it, and what is not (forged). */
export interface RunOwnership<E extends OwnedEvent> {
  /** The run's owner; none when there is no lawful run, or it is forged. */
  owner?: RunOwner;
  /** The run: events on its owner's subject (and the legacy subject it began on), in log order; none if no lawful run. */
  events: E[];
  /** Why the run, or events under its id elsewhere, are forged: each names a subject; empty when nothing is. */
  forgeries: Forgery[];
}

export interface Forgery {
  run_id: string;
  subject: string;
  seq: number;
  reason: string;
}

/**
 * Splits every event found under one run id (its legacy subject and every owner's subject) into the run and its
 * forgeries (see OwnershipCheck). Readers serve the run only when it has no forgery of its own.
 */
export function runOwnership<E extends OwnedEvent>(all: readonly E[]): RunOwnership<E> {
  const sorted = [...all].sort((a, b) => a.seq - b.seq || a.index - b.index);
  const { served, forgeries } = servedRunEvents(sorted);
  // A served run begins with its lawful RunCreated, whose kind names its owner.
  const owner = served.length ? ownerOfKind(kindOf(served[0])) : undefined;
  return owner ? { owner, events: served, forgeries } : { events: [], forgeries };
}

/**
 * What the check keeps of one run id: a few fields, whatever the number of its events (audit reads the whole log).
 * Plain JSON: the runs index keeps it with the run's row (services/audit-ledger), so the check resumes after a restart.
 */
export interface RunTrack {
  /** The owner of the lawful run under this id, once created. */
  owner?: RunOwner;
  /** The owner a run begun on the legacy subject continues under (its kind's). */
  legacyOwner?: string;
  /** Owner tokens ('' : legacy) seen, and whether each is the run or forged. */
  groups: Record<string, 'run' | 'forged'>;
  /** The first event of the run that its owner did not write: the run is forged. */
  foreign?: Forgery;
}

/**
 * The ownership rules for one commit (one stored message: one subject, one sequence) of one run id, in log order: the
 * track after it, the forgery it shows (if any), and whether its events are part of the run (see OwnershipCheck).
 * Other subjects than runs' are no part of any run.
 */
export function trackCommit(before: RunTrack | undefined, events: readonly OwnedEvent[]): { track: RunTrack; forgery?: Forgery; inRun: boolean } {
  const parsed = events.length ? parseRunSubject(events[0].subject) : null;
  const track: RunTrack = before ? { ...before, groups: { ...before.groups } } : { groups: {} };
  if (!parsed) return { track, inRun: false };
  let forgery: Forgery | undefined;
  const legacy = parsed.owner === null;
  if (legacy && !('' in track.groups) && events[0].type === 'RunCreated') track.legacyOwner = ownerOfKind(kindOf(events[0]));
  // A legacy run and its continuation on its owner's subject are one group.
  const group = legacy ? (track.legacyOwner ?? '') : parsed.owner!;
  const key = legacy ? '' : group;
  let status = track.groups[key] ?? (group === track.legacyOwner && track.groups[''] === 'run' ? 'run' : undefined);
  if (!status) {
    const problem = creationProblem(group, events[0], legacy) ?? (track.owner ? `a run with this id was created before, by ${track.owner}` : undefined);
    status = problem ? 'forged' : 'run';
    if (problem) forgery = { run_id: parsed.runId, subject: events[0].subject, seq: events[0].seq, reason: problem };
    else track.owner = group as RunOwner;
  }
  track.groups[key] = status;
  // The legacy subject's producers were whatever the sender wrote and any appender could write there: they prove
  // nothing either way, so its messages are read as they were (only the kind names the owner); the rule holds from
  // the owner subjects on, where the bus says who wrote each event.
  if (status === 'run' && !track.foreign && !legacy) {
    track.foreign = foreignEvent(parsed.runId, track.owner!, events);
    forgery = track.foreign;
  }
  return { track, ...(forgery ? { forgery } : {}), inRun: status === 'run' && (legacy ? track.legacyOwner === track.owner : group === track.owner) };
}

/** The first event of a commit on the run's own subject that its owner did not write, as a forgery; none when all are. */
function foreignEvent(runId: string, owner: RunOwner, events: readonly OwnedEvent[]): Forgery | undefined {
  const resolution = events.some((e) => e.type === 'RunResolved' && e.metadata.producer === RUN_CONTROLLER);
  for (const e of events) {
    const producer = e.metadata.producer;
    if (producer === owner) continue;
    // Written before issue 23: decision's cancel request, or its resolution commit (domain/resolution.ts).
    if (producer === RUN_CONTROLLER && (e.type === 'RunCancelRequested' || (resolution && isResolutionEvent(e)))) continue;
    return { run_id: runId, subject: e.subject, seq: e.seq, reason: `${e.type} produced by ${JSON.stringify(producer)} on ${owner}'s run` };
  }
  return undefined;
}

/** Whether readers serve the run a track describes: lawfully created, every event its owner's. */
export function isServed(track: RunTrack | undefined): boolean {
  return Boolean(track?.owner) && !track!.foreign;
}

/**
 * The ownership rules, fed commit by commit in log order (readers feed one run's, audit the whole log's). The run is
 * the earliest lawful creation under its id: a RunCreated on the subject of the service that may create that kind of
 * run, produced by it (a legacy-subject run continues on its kind's owner's subject). Every event of the run must be
 * its owner's (or, in logs written before, the former controller's cancel request or resolution); one that is not makes
 * the run forged. Events under the id on any other subject are forgeries too, but never part of the run: another
 * service cannot take a run over, or hide it, by writing under its id on its own subject.
 */
export class OwnershipCheck {
  private readonly runs = new Map<string, RunTrack>();
  private readonly found: Forgery[] = [];

  /** One stored message's events (one commit: one subject, one sequence); other subjects than runs' are ignored. */
  commit(events: readonly OwnedEvent[]): void {
    const parsed = events.length ? parseRunSubject(events[0].subject) : null;
    if (!parsed) return;
    const { track, forgery } = trackCommit(this.runs.get(parsed.runId), events);
    this.runs.set(parsed.runId, track);
    if (forgery) this.found.push(forgery);
  }

  /** Every forgery found, in log order. */
  forgeries(): Forgery[] {
    return [...this.found].sort((a, b) => a.seq - b.seq);
  }

  /** The owner of the run readers may serve under this id: lawfully created, every event its owner's. */
  servedOwner(runId: string): RunOwner | undefined {
    const track = this.runs.get(runId);
    return isServed(track) ? track!.owner : undefined;
  }

  /** Whether an event on `subject` is part of the run under this id (not another service's under the same id). */
  inRun(runId: string, subject: string): boolean {
    const track = this.runs.get(runId);
    const owner = parseRunSubject(subject)?.owner;
    return Boolean(track?.owner) && (owner === null ? track!.legacyOwner === track!.owner : owner === track!.owner);
  }
}

/** What a resolution may record on another owner's run: its lifecycle to the end, never a fact about the effect. */
const RESOLUTION_LIFECYCLE = new Set(['RunResolved', 'AuthzDecided', 'RunStarted', 'RunCompleted', 'RunFailed', 'RunDenied']);

/**
 * An event a resolution commit may hold: a lifecycle event, or an audit record the resolver marks as its own
 * (`resolved_by`: coverage's record that the effect's outcome is unknown, never read as the effect's fact). Anything
 * else (a tool's result, a write) would be decision speaking for the choke point, so it makes the run forged.
 */
function isResolutionEvent(e: OwnedEvent): boolean {
  if (RESOLUTION_LIFECYCLE.has(e.type)) return true;
  const resolvedBy = (e.data as { resolved_by?: unknown } | null)?.resolved_by;
  return /Audited$|^Export(Authorized|Assembled|Finalized)$/.test(e.type) && typeof resolvedBy === 'string' && resolvedBy !== '';
}

const RUN_KIND_FIELD = 'run_kind';

function kindOf(e: OwnedEvent): string | undefined {
  return (e.data as Record<string, string | undefined> | null)?.[RUN_KIND_FIELD];
}

/** Why `first` is not a lawful creation of a run owned by `owner`, or undefined when it is. */
function creationProblem(owner: string, first: OwnedEvent, legacy = false): string | undefined {
  if (first.type !== 'RunCreated') return `its first event is ${first.type}, not RunCreated`;
  const kind = kindOf(first);
  const creator = ownerOfKind(kind);
  if (!creator) return `RunCreated of kind ${JSON.stringify(kind)}, which no service may create`;
  if (creator !== owner) return `a ${kind} run under ${owner || 'no owner'}'s name: only ${creator} creates ${kind} runs`;
  if (!legacy && first.metadata.producer !== creator) return `RunCreated produced by ${JSON.stringify(first.metadata.producer)} on ${creator}'s run`;
  return undefined;
}

/**
 * Of run events in log order (the whole log's, as audit coverage reads them): those of runs readers serve, and the
 * forgeries. Events of one commit share their sequence and come together.
 */
export function servedRunEvents<E extends OwnedEvent>(events: readonly E[]): { served: E[]; forgeries: Forgery[] } {
  const check = new OwnershipCheck();
  for (let i = 0; i < events.length;) {
    let j = i + 1;
    while (j < events.length && events[j].seq === events[i].seq) j++;
    check.commit(events.slice(i, j));
    i = j;
  }
  const served = events.filter((e) => {
    const runId = parseRunSubject(e.subject)?.runId;
    return runId !== undefined && check.servedOwner(runId) !== undefined && check.inRun(runId, e.subject);
  });
  return { served, forgeries: check.forgeries() };
}
