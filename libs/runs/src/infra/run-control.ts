import { ConcurrencyError, type StoredEvent } from '@runledger/event-log';
import { AppError, type Clock } from '@runledger/kernel';
import { resolveAbandoned, resolverOf, runView, type Resolution, type RunView } from '../domain/resolution';
import type { RunOwner } from '../domain/run-ownership';
import { isTerminal, liveClaim } from '../domain/run-state';
import { RunLifecycleViolation } from '../domain/run.decider';
import { RunRepository } from './run-repository';
import { RunSession } from './run-session';

/** How long a run must have been quiet before it counts as abandoned (see services/decision ResolverSettings). */
export interface AbandonedAfter {
  idleMs: number;
  /** The shorter idle time once the run's root run has ended (nobody asks for a finished run's calls again). */
  graceMs: number;
}

export interface ResolvedRun {
  run_id: string;
  run_kind: string;
  outcome: Resolution['outcome'];
  basis: string;
}

/** What resolving one run came to: ended (`resolved`), carried by a live worker (`left`), or nothing to end. */
export type AbandonedRunOutcome = { outcome: 'resolved'; resolved: ResolvedRun } | { outcome: 'left' | 'not_open'; refused?: string };

/**
 * Ends one run left open that nobody carries any more with the outcome its log supports (domain/resolution.ts), as
 * its owner: `runs` appends as the run's owner (issue 23: nobody else may), so decision calls this for its own runs
 * and asks every other owner to (rl.runs.control.<owner>, RunControl below). Decided on the log's own view of the
 * run; `childRunIds`: children the runs index lists besides those the run records. It never races a live worker
 * into two terminal events: it appends with the version it decided on, so a worker that advanced the run meanwhile
 * wins and the run is left to it; a second resolver deciding on the same version under the same command id is a no-op.
 * RUN.FORGED (a run, or a neighbour, its owner did not write) is thrown to the caller.
 */
export async function resolveAbandonedRun(runs: RunRepository, runId: string, opts: AbandonedAfter & { clock: Clock; owner: RunOwner; childRunIds?: readonly string[]; commandId?: string }): Promise<AbandonedRunOutcome> {
  const { state, version, events } = await runs.load(runId);
  if (!state.run || isTerminal(state)) return { outcome: 'not_open' };
  const now = opts.clock.now();
  // An effect whose claim's lease still holds is being executed by a live owner: it is carried, however quiet.
  if (liveClaim(state, now)) return { outcome: 'left' };
  const idleFor = now.getTime() - Date.parse(state.updated_at ?? '');
  const view = (id: string) => runs.load(id).then((r) => runView(id, r.state, r.events));
  const parent = state.run.parent_run_id ? await view(state.run.parent_run_id) : undefined;
  const root = state.run.root_run_id === runId ? undefined : parent?.run_id === state.run.root_run_id ? parent.state : (await runs.load(state.run.root_run_id)).state;
  const rootEnded = root !== undefined && isTerminal(root);
  if (idleFor < (rootEnded ? Math.min(opts.idleMs, opts.graceMs) : opts.idleMs)) return { outcome: 'left' };
  // Only the run's own children count: a listed id whose run names another parent is no proof of this run's effect
  // (issue 23: a completed write elsewhere must not let an owner record this run's call as done).
  const listed = await Promise.all([...new Set([...(opts.childRunIds ?? []), ...state.child_run_ids])].map(view));
  const children: RunView[] = listed.filter((c) => c.state.run?.parent_run_id === runId);
  const why = rootEnded ? 'its root run has ended and nobody carries it' : 'nobody has carried it';
  const resolution = resolveAbandoned(runView(runId, state, events), { parent, children }, `no event for ${Math.round(idleFor / 1000)} s; ${why}`, resolverOf(opts.owner));
  if (!resolution) return { outcome: 'not_open' };
  try {
    await new RunSession(runs, state.run, state, version).decide({ type: 'Resolve', events: resolution.events }, opts.commandId ? `resolved:${opts.commandId}` : 'resolved');
  } catch (err) {
    if (err instanceof ConcurrencyError) return { outcome: 'left' }; // a worker advanced the run: it is not abandoned
    // A resolution the lifecycle refuses is a bug in it for this one run: the run is left open, the sweep goes on.
    if (err instanceof RunLifecycleViolation) return { outcome: 'left', refused: err.message };
    throw err;
  }
  return { outcome: 'resolved', resolved: { run_id: runId, run_kind: state.run.run_kind, outcome: resolution.outcome, basis: resolution.basis } };
}

/** A command decision sends a run's owner (rl.runs.control.<owner>; the RunControlRequest contract). */
export type RunControlCommand =
  | { type: 'cancel_request'; command_id: string; run_id: string; reason?: string; requested_by?: string }
  | { type: 'resolve_abandoned'; command_id: string; run_id: string; idle_ms?: number; grace_ms?: number; child_run_ids?: string[] };

export interface RunControlAnswer {
  run_id: string;
  outcome: 'requested' | 'already_ended' | 'resolved' | 'left' | 'not_open';
  status: string;
  resolution?: Omit<ResolvedRun, 'run_id'>;
}

/**
 * The owner's side of rl.runs.control.<owner> (issue 23): a run's owner ends its own runs on decision's request, so
 * decision needs no right to append to runs it does not own. The owner loads the run, decides with the run decider
 * on its own log view and appends on its own subject with the expected version; the command id names the append, so
 * the same command twice records once and is answered the same way.
 */
export class RunControl {
  /**
   * `minIdleMs`: the least idle and grace time this owner accepts (RL_RESOLVER_MIN_IDLE_MS, the floor rl.runs.resolve
   * has too), whatever decision asks: a run quieter than that may still be carried by a live worker.
   * `refused`: a resolution the run lifecycle refused (a bug for that one run, which is left open): the caller logs it.
   */
  constructor(
    private readonly runs: RunRepository, private readonly owner: RunOwner, private readonly clock: Clock,
    private readonly opts: { minIdleMs: number; refused?: (runId: string, why: string) => void },
  ) {}

  async handle(command: RunControlCommand): Promise<RunControlAnswer> {
    // Only this owner's runs: another's (or none) is not found here, whatever the command says.
    if ((await this.runs.ownerOf(command.run_id)) !== this.owner) throw new AppError('RUN.NOT_FOUND');
    return command.type === 'cancel_request' ? this.cancel(command) : this.resolve(command);
  }

  private async cancel(c: Extract<RunControlCommand, { type: 'cancel_request' }>): Promise<RunControlAnswer> {
    // The decider records nothing on a run that has ended or was asked already (idempotent).
    const state = await this.runs.handle(c.run_id, { type: 'RequestCancel', data: { reason: c.reason || 'cancelled by an operator', requested_by: c.requested_by || 'operator' } }, `cancel-requested:${c.command_id}`);
    return { run_id: c.run_id, outcome: isTerminal(state) ? 'already_ended' : 'requested', status: state.status };
  }

  private async resolve(c: Extract<RunControlCommand, { type: 'resolve_abandoned' }>): Promise<RunControlAnswer> {
    // The sweep's thresholds are decision's (services/decision ResolverSettings): the owner applies them on its own clock.
    if (c.idle_ms === undefined || c.grace_ms === undefined) throw new AppError('REQUEST.INVALID', 'resolve_abandoned needs idle_ms and grace_ms.');
    if (c.idle_ms < this.opts.minIdleMs || c.grace_ms < this.opts.minIdleMs) throw new AppError('REQUEST.INVALID', `resolve_abandoned needs idle_ms and grace_ms of at least ${this.opts.minIdleMs} ms.`);
    const done = await resolveAbandonedRun(this.runs, c.run_id, {
      idleMs: c.idle_ms, graceMs: c.grace_ms, clock: this.clock, owner: this.owner,
      ...(c.child_run_ids ? { childRunIds: c.child_run_ids } : {}), commandId: c.command_id,
    });
    if (done.outcome !== 'resolved' && done.refused) this.opts.refused?.(c.run_id, done.refused);
    const { state, events } = await this.runs.load(c.run_id);
    if (done.outcome === 'resolved') return { run_id: c.run_id, outcome: 'resolved', status: state.status, resolution: withoutId(done.resolved) };
    // The same command again after its reply was lost: answered with what it recorded.
    const earlier = resolvedBy(events, `${c.run_id}:resolved:${c.command_id}`);
    if (earlier && state.run) return { run_id: c.run_id, outcome: 'resolved', status: state.status, resolution: { run_kind: state.run.run_kind, outcome: earlier.outcome, basis: earlier.basis } };
    return { run_id: c.run_id, outcome: done.outcome, status: state.status };
  }
}

function withoutId({ run_id: _id, ...rest }: ResolvedRun): Omit<ResolvedRun, 'run_id'> {
  return rest;
}

/** The RunResolved a command recorded (its events' causation id is the command's), if it did. */
function resolvedBy(events: readonly StoredEvent[], causation: string): { outcome: ResolvedRun['outcome']; basis: string } | undefined {
  const e = events.find((x) => x.type === 'RunResolved' && x.metadata.causation_id === causation);
  return e ? (e.data as { outcome: ResolvedRun['outcome']; basis: string }) : undefined;
}
